import { z } from 'zod'
import { limitQuerySchema, modeSchema, timestampSchema } from './common.js'
import { injectedFaultSchema } from './faults.js'

export const requestLogEntrySchema = z.object({
  /** Merchant-clock time the request finished. */
  at: timestampSchema,
  mode: modeSchema,
  method: z.string(),
  path: z.string(),
  /** The status answered; for a request whose connection an API fault closed, what the work came to (`lose_response`), or 0 when nothing ran (`reset`, or a client that left during a `delay`). */
  status: z.number().int(),
  latencyMs: z.number(),
  idempotencyKey: z.string().nullable(),
  requestId: z.string(),
  /** The API fault injected into this request, if one was (docs/faults-and-doctor.md). */
  fault: injectedFaultSchema.nullable(),
})
export type RequestLogEntry = z.infer<typeof requestLogEntrySchema>

export const requestLogQuerySchema = z.strictObject({
  /** An exact status (`404`) or a class (`4xx`). */
  status: z
    .string()
    .regex(/^[1-5]([0-9]{2}|xx)$/, 'status must be like 404 or 4xx')
    .optional(),
  /** Entries whose path starts with this. */
  path: z.string().min(1).max(2048).optional(),
  limit: limitQuerySchema(1000).optional(),
})
export type RequestLogQuery = z.infer<typeof requestLogQuerySchema>

export const requestLogSchema = z.object({ data: z.array(requestLogEntrySchema) })
