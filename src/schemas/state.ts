import { z } from 'zod'

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

/** `GET /_sim/state`: the calling merchant's own objects, both modes. */
export const merchantStateSchema = stateFileSchema.extend({ merchantId: z.string() })
export const resetMerchantStateResponseSchema = z.object({ merchantId: z.string(), reset: z.literal(true) })
export const importMerchantStateResponseSchema = z.object({ merchantId: z.string(), imported: z.number().int() })
