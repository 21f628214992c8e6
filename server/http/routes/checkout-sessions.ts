import { Router } from 'express'
import {
  checkoutSessionListSchema,
  checkoutSessionSchema,
  createCheckoutSessionRequestSchema,
  listCheckoutSessionsQuerySchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { cancelSession, createSession, getSession, listSessions, replayCreateSession } from '../../services/checkout-sessions.js'
import { apiRouter, apiRoutes } from '../api-route.js'
import { idempotentReply } from '../handle.js'

export function checkoutSessionsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  // Publishable keys may create sessions (spec, Authentication 2); nothing else.
  route(
    {
      method: 'post',
      path: '/',
      summary: 'Create a Checkout Session',
      description: 'A repeat with the same Idempotency-Key, amount, currency and quote answers the original (201, `Idempotent-Replayed: true`).',
      auth: 'secret-or-publishable',
      idempotencyKey: true,
      body: createCheckoutSessionRequestSchema,
      response: { status: 201, body: checkoutSessionSchema },
      errors: ['business_only', 'idempotency_key_reused', 'live_mode_unavailable', 'quote_unavailable_in_live_mode', 'rate_limited'],
    },
    ({ caller, body, key }) => idempotentReply(createSession(ctx, caller, body, key)),
    ({ caller, body, key }) => replayCreateSession(ctx, caller, body, key),
  )
  route(
    {
      method: 'get',
      path: '/',
      summary: 'List Checkout Sessions, newest first',
      description: 'Filtered by `status` and creation time (`from`, `to`, Unix ms), paged with `limit` and the `cursor` of the previous page\'s `nextCursor`.',
      auth: 'secret',
      query: listCheckoutSessionsQuerySchema,
      response: { body: checkoutSessionListSchema },
    },
    ({ caller, query }) => ({ body: listSessions(ctx, caller, query) }),
  )
  route({ method: 'get', path: '/:id', summary: 'Get a Checkout Session', description: 'One session of the calling merchant and the key\'s mode; any other id is 404.', auth: 'secret', response: { body: checkoutSessionSchema } }, ({ caller, params }) => ({
    body: getSession(ctx, caller, params.id!),
  }))
  route(
    {
      method: 'post',
      path: '/:id/cancel',
      summary: 'Cancel a pending Checkout Session no customer has started paying',
      description: 'A session with a payment in progress is 409 `payment_in_progress`; one that has ended is 409 `invalid_state`.',
      auth: 'secret',
      response: { body: checkoutSessionSchema },
      errors: ['invalid_state', 'payment_in_progress'],
    },
    ({ caller, params }) => ({ body: cancelSession(ctx, caller, params.id!) }),
  )
  return router
}
