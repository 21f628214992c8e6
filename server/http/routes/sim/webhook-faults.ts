import { Router } from 'express'
import { webhookFaultsRequestSchema, webhookFaultsResponseSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { getFaults, setFaults } from '../../../services/webhook-faults.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/webhook-faults`: seeded delivery faults of the key's mode (docs/webhooks.md). */
export function webhookFaultsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/webhook-faults', summary: 'Delivery faults of the key\'s mode', description: 'The seeded webhook delivery faults in force, or null, and how many draws have been made.', auth: 'secret', response: { body: webhookFaultsResponseSchema } }, ({ caller }) => ({
    body: { faults: getFaults(ctx, caller) },
  }))
  route(
    {
      method: 'put',
      path: '/webhook-faults',
      summary: 'Set seeded delivery faults for the key\'s mode',
      description: 'Fail, duplicate, delay or reorder a share of webhook deliveries, decided by a seeded generator so the same seed gives the same sequence.',
      auth: 'secret',
      body: webhookFaultsRequestSchema,
      response: { body: webhookFaultsResponseSchema },
    },
    ({ caller, body }) => ({ body: { faults: setFaults(ctx, caller, body) } }),
  )
  route({ method: 'delete', path: '/webhook-faults', summary: 'Turn delivery faults off', description: 'Deliveries go through as normal from now on.', auth: 'secret', response: { body: webhookFaultsResponseSchema } }, ({ caller }) => ({
    body: { faults: setFaults(ctx, caller, null) },
  }))
  return router
}
