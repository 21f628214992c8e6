import { z } from 'zod'
import { modeSchema } from './common.js'

/**
 * A state file (`bula state export`): every collection as a list of objects
 * in creation order. server/state.ts checks files as they are read; this
 * describes them for the `/_sim/state` routes.
 */
export const stateFileSchema = z.object({
  format: z.literal('bula-state'),
  version: z.literal(1),
  collections: z.record(z.string(), z.array(z.looseObject({ id: z.string() }))),
})

/** `GET /_sim/state`: the calling merchant's own objects of the key's mode. */
export const merchantStateSchema = stateFileSchema.extend({ merchantId: z.string(), mode: modeSchema })
export const resetMerchantStateResponseSchema = z.object({ merchantId: z.string(), mode: modeSchema, reset: z.literal(true) })
export const importMerchantStateResponseSchema = z.object({ merchantId: z.string(), mode: modeSchema, imported: z.number().int() })
