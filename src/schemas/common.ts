import { z } from 'zod'
import { MODES, PAYOUT_SCHEDULES, TIERS } from './enums.js'

export const modeSchema = z.enum(MODES)
export type Mode = z.infer<typeof modeSchema>

export const tierSchema = z.enum(TIERS)
export type Tier = z.infer<typeof tierSchema>

export const payoutScheduleSchema = z.enum(PAYOUT_SCHEDULES)
export type PayoutSchedule = z.infer<typeof payoutScheduleSchema>

/** Unix milliseconds on the merchant's clock. */
export const timestampSchema = z.number().int().nonnegative()

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    type: z.string().optional(),
  }),
})

/** A request body that must be absent or an empty JSON object. */
export const emptyBodySchema = z.strictObject({})

/** A whole number sent as a query string value. */
export const integerQuerySchema = (name: string) =>
  z
    .string()
    .regex(/^[0-9]{1,16}$/, `${name} must be a whole number`)
    .transform(Number)

/** The list `limit` of the spec: 1 to `max` (100), as a query string value. */
export const limitQuerySchema = (max = 100) => integerQuerySchema('limit').pipe(z.number().int().min(1).max(max))
