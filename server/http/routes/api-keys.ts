import { Router } from 'express'
import {
  apiKeyListSchema,
  createApiKeyRequestSchema,
  createApiKeyResponseSchema,
  revokeApiKeyResponseSchema,
  rotateApiKeyResponseSchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { createKey, listKeys, revokeKey, rotateKey } from '../../services/api-keys.js'
import { apiRouter, apiRoutes } from '../api-route.js'

/** `/api-keys`, mounted with and without `/v1` (docs/simulator.md, "Merchants and keys"). */
export function apiKeysRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'post',
      path: '/',
      summary: 'Create an API key; its plaintext is shown this once',
      description: 'Makes a secret or publishable key of the calling key\'s mode. Only its hash is stored: the `plaintext` in this answer is the one time the key is shown.',
      auth: 'secret',
      body: createApiKeyRequestSchema,
      response: { body: createApiKeyResponseSchema },
      errors: ['live_key_requires_live_key', 'test_key_requires_test_key'],
    },
    ({ caller, body }) => ({ body: { key: createKey(ctx, caller, body) } }),
  )
  route(
    { method: 'get', path: '/', summary: 'List the calling mode\'s keys, oldest first', description: 'Every key of the calling key\'s mode, active, expiring or revoked, masked (`sk_test_…zRet`); never a plaintext.', auth: 'secret', response: { body: apiKeyListSchema } },
    ({ caller }) => ({ body: { data: listKeys(ctx, caller) } }),
  )
  route(
    {
      method: 'post',
      path: '/:id/rotate',
      summary: 'Rotate a key: a new one now, the old one until 72 hours later',
      description: 'Makes a new key of the same type and mode and gives the old one an `expiresAt` 72 hours ahead on the merchant\'s clock, so both work during the overlap.',
      auth: 'secret',
      response: { body: rotateApiKeyResponseSchema },
      errors: ['invalid_state'],
    },
    ({ caller, params }) => ({ body: rotateKey(ctx, caller, params.id!) }),
  )
  route(
    {
      method: 'post',
      path: '/:id/revoke',
      summary: 'Revoke a key at once',
      description: 'The key stops working immediately, streams and dashboard sessions opened with it close within a second. Revoking it again is 409.',
      auth: 'secret',
      response: { body: revokeApiKeyResponseSchema },
      errors: ['invalid_state'],
    },
    ({ caller, params }) => ({ body: { key: revokeKey(ctx, caller, params.id!) } }),
  )
  return router
}
