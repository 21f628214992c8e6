import { z } from 'zod'
import { timestampSchema } from './common.js'
import { verificationStatusSchema } from './merchants.js'

/** An image as a data URL (`data:image/png;base64,...`) or bare base64. */
const imageSchema = z.string().min(1)

export const submitVerificationRequestSchema = z
  .strictObject({
    /** Fiji TIN: nine digits, a dash or a space allowed between two of them. */
    tin: z.string().regex(/^([0-9][ -]?){8}[0-9]$/, 'must be a 9-digit TIN'),
    tinCardPhoto: imageSchema,
    businessRegistration: imageSchema.optional(),
    personalId: imageSchema.optional(),
  })
  // Business accounts send businessRegistration, individual ones personalId: one of the two, never both.
  .meta({ oneOf: [{ required: ['businessRegistration'] }, { required: ['personalId'] }] })
export type SubmitVerificationRequest = z.infer<typeof submitVerificationRequestSchema>

export const rejectVerificationRequestSchema = z.strictObject({
  reason: z.string().trim().min(1).max(500),
})

export const verificationDocumentSchema = z.object({
  contentType: z.string(),
  bytes: z.number().int(),
  sha256: z.string(),
})

export const verificationSchema = z.object({
  status: verificationStatusSchema,
  /** Masked: only the last three digits. */
  tin: z.string().nullable(),
  documents: z.record(z.string(), verificationDocumentSchema),
  submittedAt: timestampSchema.nullable(),
  reviewedAt: timestampSchema.nullable(),
  rejectionReason: z.string().nullable(),
})
export type Verification = z.infer<typeof verificationSchema>

export const verificationResponseSchema = z.object({ verification: verificationSchema })
export const approveVerificationResponseSchema = z.object({
  verification: verificationSchema,
  keys: z.object({ secret: z.string(), publishable: z.string() }),
})
export type ApproveVerificationResponse = z.infer<typeof approveVerificationResponseSchema>
