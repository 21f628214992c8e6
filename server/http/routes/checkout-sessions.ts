import { Router } from 'express'
import {
  createCheckoutSessionRequestSchema,
  emptyBodySchema,
  listCheckoutSessionsQuerySchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { cancelSession, createSession, getSession, listSessions } from '../../services/checkout-sessions.js'
import { authenticate, callerOf } from '../auth.js'
import { handle, idempotentReply } from '../handle.js'
import { idempotencyKeyOf, parseWith } from '../validate.js'

export function checkoutSessionsRouter(ctx: ServiceContext): Router {
  const router = Router()
  // Publishable keys may create sessions (spec, Authentication 2); nothing else.
  router.post(
    '/',
    authenticate(ctx, { allowPublishable: true }),
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      return idempotentReply(createSession(ctx, callerOf(res), parseWith(createCheckoutSessionRequestSchema, req.body), key))
    }),
  )
  router.get(
    '/',
    authenticate(ctx),
    handle(ctx, (req, res) => ({ body: listSessions(ctx, callerOf(res), parseWith(listCheckoutSessionsQuerySchema, req.query, 'query')) })),
  )
  router.get(
    '/:id',
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: getSession(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  router.post(
    '/:id/cancel',
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: cancelSession(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  return router
}
