import { Router } from 'express'
import { createApiKeyRequestSchema, emptyBodySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { createKey, listKeys, revokeKey, rotateKey } from '../../services/api-keys.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { parseWith } from '../validate.js'

/** `/api-keys`, mounted with and without `/v1` (contract §3). */
export function apiKeysRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  router.post(
    '/',
    handle(ctx, (req, res) => ({ body: { key: createKey(ctx, callerOf(res), parseWith(createApiKeyRequestSchema, req.body)) } })),
  )
  router.get(
    '/',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: { data: listKeys(ctx, callerOf(res)) } }
    }),
  )
  router.post(
    '/:id/rotate',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: rotateKey(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  router.post(
    '/:id/revoke',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: { key: revokeKey(ctx, callerOf(res), String(req.params.id)) } }
    }),
  )
  return router
}
