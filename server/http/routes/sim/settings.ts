import { Router } from 'express'
import { ratesSchema, settingsSchema, updateRatesRequestSchema, updateSettingsRequestSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { getRates, updateRates } from '../../../services/rates.js'
import { presentSettings, updateSettings } from '../../../services/settings.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/settings` and `/_sim/rates`: the dashboard's settings and the quote rate table. */
export function settingsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/settings', summary: 'Dashboard settings', description: 'The settings of the key\'s mode: display name, invoice prefix and next number, receipts, payout schedule and destination, and whether live providers are on.', auth: 'secret', response: { body: settingsSchema } }, ({ caller }) => ({
    body: presentSettings(ctx.store.get('merchants', caller.merchant.id) ?? caller.merchant, caller.mode),
  }))
  route(
    {
      method: 'patch',
      path: '/settings',
      summary: 'Change dashboard settings',
      description: 'Changes only the fields sent. Once the merchant has live keys, what moves live money (payout schedule and destination, live providers) needs a live key (403 `live_key_required`). A prefix and next number that would repeat a number already issued are taken: sending skips to the next number never issued.',
      auth: 'secret',
      body: updateSettingsRequestSchema,
      response: { body: settingsSchema },
      errors: ['verification_required', 'live_key_required'],
    },
    ({ caller, body }) => ({ body: updateSettings(ctx, caller, body) }),
  )
  route({ method: 'get', path: '/rates', summary: 'The merchant\'s quote rates', description: 'The FJD rate per unit of each quote currency (USD, AUD), with when it was set on the merchant\'s clock. A session locks the rate at creation.', auth: 'secret', response: { body: ratesSchema } }, ({ caller }) => ({
    body: getRates(ctx, caller),
  }))
  route(
    { method: 'put', path: '/rates', summary: 'Set quote rates', description: 'Replaces the rates sent; each is a decimal string above 0 with up to 4 decimals. Sessions already created keep the rate they locked.', auth: 'secret', body: updateRatesRequestSchema, response: { body: ratesSchema } },
    ({ caller, body }) => ({ body: updateRates(ctx, caller, body) }),
  )
  return router
}
