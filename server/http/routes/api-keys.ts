import { Router } from 'express'
import {
  apiKeyListSchema,
  createApiKeyRequestSchema,
  createApiKeyResponseSchema,
  emptyBodySchema,
  revokeApiKeyResponseSchema,
  rotateApiKeyResponseSchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { createKey, listKeys, revokeKey, rotateKey } from '../../services/api-keys.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'

/** `/api-keys`, mounted with and without `/v1` (contract §3). */
export function apiKeysRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  declareRoute(
    router,
    {
      method: 'post',
      path: '/',
      summary: 'Create an API key; its plaintext is shown this once',
      auth: 'secret',
      body: createApiKeyRequestSchema,
      response: { body: createApiKeyResponseSchema },
      errors: ['live_key_requires_live_key', 'test_key_requires_test_key'],
    },
    handle(ctx, (req, res) => ({ body: { key: createKey(ctx, callerOf(res), parseWith(createApiKeyRequestSchema, req.body)) } })),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'List the calling mode\'s keys, oldest first',
      auth: 'secret',
      query: emptyBodySchema,
      response: { body: apiKeyListSchema },
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: { data: listKeys(ctx, callerOf(res)) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/rotate',
      summary: 'Rotate a key: a new one now, the old one until 72 hours later',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: rotateApiKeyResponseSchema },
      errors: ['invalid_state'],
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: rotateKey(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/revoke',
      summary: 'Revoke a key at once',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: revokeApiKeyResponseSchema },
      errors: ['invalid_state'],
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: { key: revokeKey(ctx, callerOf(res), String(req.params.id)) } }
    }),
  )
  return router
}
