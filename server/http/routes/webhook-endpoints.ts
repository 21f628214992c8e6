import { Router } from 'express'
import {
  createWebhookEndpointRequestSchema,
  deletedWebhookEndpointSchema,
  emptyBodySchema,
  webhookEndpointListSchema,
  webhookEndpointResponseSchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { deleteEndpoint, listEndpoints, registerEndpoint, rotateEndpointSecret } from '../../services/webhook-endpoints.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'

/** `/webhook-endpoints`, mounted with and without `/v1` (contract §3). */
export function webhookEndpointsRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  declareRoute(
    router,
    {
      method: 'post',
      path: '/',
      summary: 'Register a webhook endpoint for the key\'s mode (signing secret shown once)',
      auth: 'secret',
      body: createWebhookEndpointRequestSchema,
      response: { body: webhookEndpointResponseSchema },
    },
    handle(ctx, (req, res) => ({
      body: { endpoint: registerEndpoint(ctx, callerOf(res), parseWith(createWebhookEndpointRequestSchema, req.body)) },
    })),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'List webhook endpoints',
      auth: 'secret',
      query: emptyBodySchema,
      response: { body: webhookEndpointListSchema },
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: { data: listEndpoints(ctx, callerOf(res)) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'delete',
      path: '/:id',
      summary: 'Delete a webhook endpoint; its pending deliveries are cancelled',
      auth: 'secret',
      response: { body: deletedWebhookEndpointSchema },
    },
    handle(ctx, (req, res) => ({ body: deleteEndpoint(ctx, callerOf(res), String(req.params.id)) })),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/rotate',
      summary: 'Rotate the signing secret; the old one keeps verifying for 72 hours',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: webhookEndpointResponseSchema },
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: { endpoint: rotateEndpointSecret(ctx, callerOf(res), String(req.params.id)) } }
    }),
  )
  return router
}
