import { hash } from 'node:crypto'
import { maskedKey } from '../../src/key-mask.js'
import type { KeyType, Mode } from '../../src/schemas/index.js'
import type { ApiKey } from '../../src/schemas/api-keys.js'
import type { ApiKeyRecord } from './records.js'

export type { ApiKeyRecord } from './records.js'

export const ROTATION_OVERLAP_MS = 72 * 60 * 60 * 1000

export const keyPrefix = (type: KeyType, mode: Mode): string => `${type === 'secret' ? 'sk' : 'pk'}_${mode}_`

/** One-shot: every authenticated request hashes its key, and a Hash object costs more than the hashing. */
export const hashKey = (plaintext: string): string => hash('sha256', plaintext)

/** The mode and type a plaintext claims by its prefix, or null for anything that is not a key. */
export function parseKeyPrefix(plaintext: string): { type: KeyType; mode: Mode } | null {
  const match = /^(sk|pk)_(test|live)_[0-9A-Za-z]+$/.exec(plaintext)
  if (!match) return null
  return { type: match[1] === 'sk' ? 'secret' : 'publishable', mode: match[2] as Mode }
}

/** Whether the key authenticates a request made at `now` (merchant clock). */
export const keyIsUsable = (key: ApiKeyRecord, now: number): boolean =>
  key.revokedAt === null && (key.expiresAt === null || now < key.expiresAt)

export function keyStatus(key: ApiKeyRecord, now: number): ApiKey['status'] {
  if (key.revokedAt !== null) return 'revoked'
  if (key.expiresAt === null) return 'active'
  return now < key.expiresAt ? 'expiring' : 'expired'
}

export function presentKey(key: ApiKeyRecord, now: number): ApiKey {
  const prefix = keyPrefix(key.type, key.mode)
  return {
    id: key.id,
    type: key.type,
    mode: key.mode,
    prefix,
    masked: maskedKey(prefix, key.last4),
    status: keyStatus(key, now),
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
  }
}
