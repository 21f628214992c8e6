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

const stateDocumentSchema = z.looseObject({ id: z.string() })

/**
 * A collection of an imported file, refused at its first document without an
 * id. zod's own array check makes an issue of every bad item: a body of 21
 * million `{}` or 31 million `0` (60 MiB) ran the simulator out of memory
 * (every merchant's), where one issue is all a refusal names.
 */
const importedCollectionSchema = z.preprocess((documents, ctx) => {
  if (!Array.isArray(documents)) return documents
  for (const [index, document] of documents.entries()) {
    const problem = stateDocumentSchema.safeParse(document).error?.issues[0]
    if (problem) {
      ctx.addIssue({ ...problem, path: [index, ...problem.path] })
      break
    }
  }
  return documents
}, z.array(stateDocumentSchema))

/**
 * `POST /_sim/state/import`: one merchant's state file, as `GET /_sim/state`
 * writes it. Only the envelope is described here; the simulator checks every
 * document against the store's schema (docs/security.md, "State files").
 */
export const importMerchantStateRequestSchema = z.strictObject({
  format: z.literal('bula-state'),
  version: z.literal(1),
  merchantId: z.string().optional(),
  mode: modeSchema.optional(),
  collections: z.record(z.string(), importedCollectionSchema),
})

/** `GET /_sim/state`: the calling merchant's own objects of the key's mode. */
export const merchantStateSchema = stateFileSchema.extend({ merchantId: z.string(), mode: modeSchema })
export const resetMerchantStateResponseSchema = z.object({ merchantId: z.string(), mode: modeSchema, reset: z.literal(true) })
export const importMerchantStateResponseSchema = z.object({ merchantId: z.string(), mode: modeSchema, imported: z.number().int() })
