import { z } from 'zod'
import { timestampSchema } from './common.js'
import { MAX_ADVANCE_MS } from './enums.js'

export { MAX_ADVANCE_MS } from './enums.js'

/** Exactly one of `ms` (how far) or `to` (until when). */
export const advanceClockRequestSchema = z
  .strictObject({
    ms: z.number().int().min(0).max(MAX_ADVANCE_MS).optional(),
    to: timestampSchema.optional(),
  })
  .refine((body) => (body.ms === undefined) !== (body.to === undefined), {
    message: 'send exactly one of `ms` or `to`',
    path: ['ms'],
  })
  .meta({ oneOf: [{ required: ['ms'] }, { required: ['to'] }] })
export type AdvanceClockRequest = z.infer<typeof advanceClockRequestSchema>

export const clockSchema = z.object({
  now: timestampSchema,
  /** How far this merchant's clock is ahead of real time. */
  offsetMs: z.number().int(),
})
export type Clock = z.infer<typeof clockSchema>

export const ranActionSchema = z.object({
  at: timestampSchema,
  kind: z.string(),
  description: z.string(),
})
export type RanAction = z.infer<typeof ranActionSchema>

export const advanceClockResponseSchema = clockSchema.extend({ ran: z.array(ranActionSchema) })
export type AdvanceClockResponse = z.infer<typeof advanceClockResponseSchema>
