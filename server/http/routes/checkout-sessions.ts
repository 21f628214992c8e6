import { Router } from 'express'
import {
  checkoutSessionListSchema,
  checkoutSessionSchema,
  createCheckoutSessionRequestSchema,
  emptyBodySchema,
  listCheckoutSessionsQuerySchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { cancelSession, createSession, getSession, listSessions } from '../../services/checkout-sessions.js'
import { authenticate, callerOf } from '../auth.js'
import { handle, idempotentReply } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { idempotencyKeyOf, parseWith } from '../validate.js'

export function checkoutSessionsRouter(ctx: ServiceContext): Router {
  const router = Router()
  // Publishable keys may create sessions (spec, Authentication 2); nothing else.
  declareRoute(
    router,
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
    authenticate(ctx, { allowPublishable: true }),
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      return idempotentReply(createSession(ctx, callerOf(res), parseWith(createCheckoutSessionRequestSchema, req.body), key))
    }),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'List Checkout Sessions, newest first',
      auth: 'secret',
      query: listCheckoutSessionsQuerySchema,
      response: { body: checkoutSessionListSchema },
    },
    authenticate(ctx),
    handle(ctx, (req, res) => ({ body: listSessions(ctx, callerOf(res), parseWith(listCheckoutSessionsQuerySchema, req.query, 'query')) })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/:id', summary: 'Get a Checkout Session', auth: 'secret', query: emptyBodySchema, response: { body: checkoutSessionSchema } },
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: getSession(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/cancel',
      summary: 'Cancel a pending Checkout Session no customer has started paying',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: checkoutSessionSchema },
      errors: ['invalid_state', 'payment_in_progress'],
    },
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: cancelSession(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  return router
}
