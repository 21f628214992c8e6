import { z } from 'zod'
import { KEY_TYPES } from './enums.js'
import { modeSchema, timestampSchema } from './common.js'

export const keyTypeSchema = z.enum(KEY_TYPES)
export type KeyType = z.infer<typeof keyTypeSchema>

export const createApiKeyRequestSchema = z.strictObject({
  type: keyTypeSchema,
  /** Defaults to the calling key's mode. */
  mode: modeSchema.optional(),
})
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>

export const keyStatusSchema = z.enum(['active', 'expiring', 'expired', 'revoked'])

/** A key as listings show it: never the plaintext. */
export const apiKeySchema = z.object({
  id: z.string(),
  type: keyTypeSchema,
  mode: modeSchema,
  /** e.g. `sk_test_` */
  prefix: z.string(),
  /** e.g. `sk_test_…a1b2` */
  masked: z.string(),
  status: keyStatusSchema,
  createdAt: timestampSchema,
  /** End of a rotation overlap (merchant clock); null when the key does not expire. */
  expiresAt: timestampSchema.nullable(),
  revokedAt: timestampSchema.nullable(),
})
export type ApiKey = z.infer<typeof apiKeySchema>

/** The create response's `key`: the spec's fields plus the listing fields. */
export const createdApiKeySchema = apiKeySchema.extend({ plaintext: z.string() })
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>

export const createApiKeyResponseSchema = z.object({ key: createdApiKeySchema })
export const apiKeyListSchema = z.object({ data: z.array(apiKeySchema) })
/** Rotate: the new key (plaintext once) and the old one with its expiry. */
export const rotateApiKeyResponseSchema = z.object({ key: createdApiKeySchema, previous: apiKeySchema })
export const revokeApiKeyResponseSchema = z.object({ key: apiKeySchema })

export type ApiKeyList = z.infer<typeof apiKeyListSchema>
export type RotateApiKeyResponse = z.infer<typeof rotateApiKeyResponseSchema>
export type RevokeApiKeyResponse = z.infer<typeof revokeApiKeyResponseSchema>
