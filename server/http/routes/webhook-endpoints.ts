import { Router } from 'express'
import {
  createWebhookEndpointRequestSchema,
  deletedWebhookEndpointSchema,
  webhookEndpointListSchema,
  webhookEndpointResponseSchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { deleteEndpoint, listEndpoints, registerEndpoint, rotateEndpointSecret } from '../../services/webhook-endpoints.js'
import { apiRouter, apiRoutes } from '../api-route.js'

/** `/webhook-endpoints`, mounted with and without `/v1` (docs/simulator.md, "Merchants and keys"). */
export function webhookEndpointsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'post',
      path: '/',
      summary: 'Register a webhook endpoint for the key\'s mode (signing secret shown once)',
      description: 'An https URL (http to localhost in test mode). It starts `pending` and becomes `active` after a `webhook.verified` delivery answered 2xx. The `whsec_` secret is shown this once.',
      auth: 'secret',
      body: createWebhookEndpointRequestSchema,
      response: { body: webhookEndpointResponseSchema },
    },
    ({ caller, body }) => ({ body: { endpoint: registerEndpoint(ctx, caller, body) } }),
  )
  route({ method: 'get', path: '/', summary: 'List webhook endpoints', description: 'The endpoints of the key\'s mode, without their secrets.', auth: 'secret', response: { body: webhookEndpointListSchema } }, ({ caller }) => ({
    body: { data: listEndpoints(ctx, caller) },
  }))
  route(
    {
      method: 'delete',
      path: '/:id',
      summary: 'Delete a webhook endpoint; its pending deliveries are cancelled',
      description: 'The endpoint gets nothing more, retries included.',
      auth: 'secret',
      response: { body: deletedWebhookEndpointSchema },
    },
    ({ caller, params }) => ({ body: deleteEndpoint(ctx, caller, params.id!) }),
  )
  route(
    {
      method: 'post',
      path: '/:id/rotate',
      summary: 'Rotate the signing secret; the old one keeps verifying for 72 hours',
      description: 'Deliveries carry a `v1=` signature for each secret in force, so a receiver can switch without missing one.',
      auth: 'secret',
      response: { body: webhookEndpointResponseSchema },
    },
    ({ caller, params }) => ({ body: { endpoint: rotateEndpointSecret(ctx, caller, params.id!) } }),
  )
  return router
}
