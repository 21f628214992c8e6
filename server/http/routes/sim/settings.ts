import { Router } from 'express'
import { ratesSchema, settingsSchema, updateRatesRequestSchema, updateSettingsRequestSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { getRates, updateRates } from '../../../services/rates.js'
import { presentSettings, updateSettings } from '../../../services/settings.js'
import { apiRoutes } from '../../api-route.js'

/** `/_sim/settings` and `/_sim/rates`: the dashboard's settings and the quote rate table. */
export function settingsRouter(ctx: ServiceContext): Router {
  const router = Router()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/settings', summary: 'Dashboard settings', auth: 'secret', response: { body: settingsSchema } }, ({ caller }) => ({
    body: presentSettings(ctx.store.get('merchants', caller.merchant.id) ?? caller.merchant, caller.mode),
  }))
  route(
    {
      method: 'patch',
      path: '/settings',
      summary: 'Change dashboard settings',
      auth: 'secret',
      body: updateSettingsRequestSchema,
      response: { body: settingsSchema },
      errors: ['verification_required', 'live_key_required'],
    },
    ({ caller, body }) => ({ body: updateSettings(ctx, caller, body) }),
  )
  route({ method: 'get', path: '/rates', summary: 'The merchant\'s quote rates', auth: 'secret', response: { body: ratesSchema } }, ({ caller }) => ({
    body: getRates(ctx, caller),
  }))
  route(
    { method: 'put', path: '/rates', summary: 'Set quote rates', auth: 'secret', body: updateRatesRequestSchema, response: { body: ratesSchema } },
    ({ caller, body }) => ({ body: updateRates(ctx, caller, body) }),
  )
  return router
}
