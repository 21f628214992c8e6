import { z } from 'zod'
import { emailAddressSchema, modeSchema, payoutScheduleSchema, textLineSchema, tierSchema, timestampSchema } from './common.js'

export const signupRequestSchema = z.strictObject({
  email: emailAddressSchema,
  name: textLineSchema(100),
  tier: tierSchema,
})
export type SignupRequest = z.infer<typeof signupRequestSchema>

export const verificationStatusSchema = z.enum(['unverified', 'pending', 'approved', 'rejected'])
export type VerificationStatus = z.infer<typeof verificationStatusSchema>

/** The merchant as the simulator's `/_sim` surface shows it. */
export const simMerchantSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  tier: tierSchema,
  createdAt: timestampSchema,
  verificationStatus: verificationStatusSchema,
  liveUnlocked: z.boolean(),
})
export type SimMerchant = z.infer<typeof simMerchantSchema>

export const signupResponseSchema = z.object({
  merchant: simMerchantSchema,
  keys: z.object({ secret: z.string(), publishable: z.string() }),
})
export type SignupResponse = z.infer<typeof signupResponseSchema>

/** `GET /v1/merchants/me`: the spec's four fields, plus additive ones. */
export const merchantMeSchema = z.object({
  id: z.string(),
  name: z.string(),
  displayName: z.string(),
  email: z.string(),
  tier: tierSchema,
  mode: modeSchema,
  balance: z.number().int(),
  payoutSchedule: payoutScheduleSchema,
})
export type MerchantMe = z.infer<typeof merchantMeSchema>
