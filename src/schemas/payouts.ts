import { z } from 'zod'
import { limitQuerySchema, timestampSchema } from './common.js'

export const payoutSchema = z.object({
  id: z.string(),
  amount: z.number().int(),
  rail: z.enum(['bank_transfer', 'wallet']),
  status: z.enum(['pending', 'paid', 'failed']),
  paidAt: timestampSchema.nullable(),
  failureReason: z.string().nullable(),
  createdAt: timestampSchema,
  // Additive:
  mode: z.enum(['test', 'live']),
  /** When the disbursement run sent it (live mode), else null. */
  sentAt: timestampSchema.nullable(),
})
export type Payout = z.infer<typeof payoutSchema>

export const listPayoutsQuerySchema = z.strictObject({
  limit: limitQuerySchema().optional(),
  starting_after: z.string().min(1).max(100).optional(),
})
export type ListPayoutsQuery = z.infer<typeof listPayoutsQuerySchema>

export const payoutListSchema = z.object({ data: z.array(payoutSchema), hasMore: z.boolean() })
export type PayoutList = z.infer<typeof payoutListSchema>

export const failNextPayoutRequestSchema = z.strictObject({
  reason: z.string().trim().min(1).max(200),
})
export const payoutResponseSchema = z.object({ payout: payoutSchema })
/** `POST /_sim/payouts/fail-next`: the reason the next live transfer will fail with. */
export const failNextPayoutResponseSchema = z.object({ nextPayoutFailure: z.string() })
