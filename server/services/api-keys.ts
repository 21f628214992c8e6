import { apiError } from '../domain/error-catalog.js'
import { invalidState, notFound } from '../../src/errors.js'
import type { ApiKey, CreateApiKeyRequest, CreatedApiKey, KeyType, Mode } from '../../src/schemas/index.js'
import type { RotateApiKeyResponse } from '../../src/schemas/api-keys.js'
import type { Caller, ServiceContext } from '../context.js'
import {
  ROTATION_OVERLAP_MS,
  hashKey,
  keyIsUsable,
  keyPrefix,
  presentKey,
  type ApiKeyRecord,
} from '../domain/api-key.js'
import { newId, newSecret } from '../ids.js'

/** Issues a key and returns it with its plaintext, which is never seen again. */
export function issueKey(ctx: ServiceContext, merchantId: string, type: KeyType, mode: Mode): CreatedApiKey {
  const plaintext = newSecret(keyPrefix(type, mode))
  const now = ctx.clock.now(merchantId)
  const record: ApiKeyRecord = {
    id: newId('key'),
    merchantId,
    type,
    mode,
    hash: hashKey(plaintext),
    last4: plaintext.slice(-4),
    createdAt: now,
    expiresAt: null,
    revokedAt: null,
    rotatedTo: null,
  }
  ctx.store.put('apiKeys', record)
  return { ...presentKey(record, now), plaintext }
}

/** The key a bearer plaintext names, if it may authenticate right now. */
export function findUsableKey(ctx: ServiceContext, plaintext: string): ApiKeyRecord | undefined {
  const key = ctx.store.lookup('apiKeys', 'byHash', hashKey(plaintext))
  if (!key) return undefined
  return keyIsUsable(key, ctx.clock.now(key.merchantId)) ? key : undefined
}

/**
 * Whether a key that authenticated earlier (a stream, a dashboard sign-in)
 * still would now: not revoked, not past its rotation overlap on the
 * merchant's clock. Read from the store, so a revoke is seen at once.
 */
export function keyStillUsable(ctx: ServiceContext, key: ApiKeyRecord): boolean {
  const current = ctx.store.get('apiKeys', key.id)
  return current !== undefined && keyIsUsable(current, ctx.clock.now(current.merchantId))
}

/**
 * A key manages keys of its own mode only (docs/simulator.md, "Merchants and keys"), so a leaked test
 * key can never mint a live key.
 */
export function createKey(ctx: ServiceContext, caller: Caller, request: CreateApiKeyRequest): CreatedApiKey {
  const mode = request.mode ?? caller.mode
  if (mode !== caller.mode) {
    throw mode === 'live'
      ? apiError('live_key_requires_live_key', 'Live keys can only be created with a live secret key.', { param: 'mode' })
      : apiError('test_key_requires_test_key', 'Test keys can only be created with a test secret key.', { param: 'mode' })
  }
  return issueKey(ctx, caller.merchant.id, request.type, mode)
}

export function listKeys(ctx: ServiceContext, caller: Caller): ApiKey[] {
  const now = ctx.clock.now(caller.merchant.id)
  return ctx.store
    .group('apiKeys', 'byMerchant', caller.merchant.id)
    .map((id) => ctx.store.get('apiKeys', id))
    .filter((key): key is ApiKeyRecord => key !== undefined && key.mode === caller.mode)
    .map((key) => presentKey(key, now))
}

function ownKey(ctx: ServiceContext, caller: Caller, id: string): ApiKeyRecord {
  const key = ctx.store.get('apiKeys', id)
  if (!key || key.merchantId !== caller.merchant.id || key.mode !== caller.mode) throw notFound('API key')
  return key
}

/** A new key of the same type; the old one keeps working for 72 hours of the merchant's clock. */
export function rotateKey(ctx: ServiceContext, caller: Caller, id: string): RotateApiKeyResponse {
  const old = ownKey(ctx, caller, id)
  const now = ctx.clock.now(caller.merchant.id)
  if (!keyIsUsable(old, now) || old.rotatedTo !== null) {
    throw invalidState(`Key ${id} was already ${old.revokedAt !== null ? 'revoked' : 'rotated'}; rotate its replacement instead.`)
  }
  const key = issueKey(ctx, caller.merchant.id, old.type, old.mode)
  const previous: ApiKeyRecord = { ...old, expiresAt: now + ROTATION_OVERLAP_MS, rotatedTo: key.id }
  ctx.store.put('apiKeys', previous)
  return { key, previous: presentKey(previous, now) }
}

/** Revocation is immediate, also during a rotation overlap. */
export function revokeKey(ctx: ServiceContext, caller: Caller, id: string): ApiKey {
  const key = ownKey(ctx, caller, id)
  const now = ctx.clock.now(caller.merchant.id)
  if (key.revokedAt !== null) throw invalidState(`Key ${id} is already revoked.`)
  const revoked: ApiKeyRecord = { ...key, revokedAt: now }
  ctx.store.put('apiKeys', revoked)
  return presentKey(revoked, now)
}
