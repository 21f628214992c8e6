import { Router } from 'express'
import { createWebhookEndpointRequestSchema, emptyBodySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { deleteEndpoint, listEndpoints, registerEndpoint, rotateEndpointSecret } from '../../services/webhook-endpoints.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { parseWith } from '../validate.js'

/** `/webhook-endpoints`, mounted with and without `/v1` (contract §3). */
export function webhookEndpointsRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  router.post(
    '/',
    handle(ctx, (req, res) => ({
      body: { endpoint: registerEndpoint(ctx, callerOf(res), parseWith(createWebhookEndpointRequestSchema, req.body)) },
    })),
  )
  router.get(
    '/',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: { data: listEndpoints(ctx, callerOf(res)) } }
    }),
  )
  router.delete(
    '/:id',
    handle(ctx, (req, res) => ({ body: deleteEndpoint(ctx, callerOf(res), String(req.params.id)) })),
  )
  router.post(
    '/:id/rotate',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: { endpoint: rotateEndpointSecret(ctx, callerOf(res), String(req.params.id)) } }
    }),
  )
  return router
}
