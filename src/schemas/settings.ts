import { z } from 'zod'
import { modeSchema, payoutScheduleSchema, textLineSchema } from './common.js'
import { vatNumberSchema } from './invoices.js'

export const payoutDestinationSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bank_account'),
    bankName: textLineSchema(100),
    accountName: textLineSchema(100),
    accountNumber: z.string().regex(/^[0-9]{6,20}$/, 'must be 6 to 20 digits'),
  }),
  z.strictObject({
    type: z.literal('wallet'),
    provider: z.enum(['mpaisa', 'mycash']),
    phone: z.string().regex(/^\+679[0-9]{7}$/, 'must be a Fiji mobile number like +6797123456'),
  }),
])
export type PayoutDestination = z.infer<typeof payoutDestinationSchema>

/**
 * Invoice numbers are `<invoicePrefix><number padded to 4 digits>`. The spec
 * shapes numbers like `INV-<digits>`, so a prefix is `INV-` followed by up to
 * eight digits of the merchant's choosing (a year, a branch).
 */
export const invoicePrefixSchema = z.string().regex(/^INV-[0-9]{0,8}$/, 'must be INV- followed by up to 8 digits')

export const settingsSchema = z.object({
  /** The mode of the key that read the settings; the invoice counter is this mode's. */
  mode: modeSchema,
  displayName: z.string(),
  /** The merchant's VAT number, printed as the seller's on every invoice that does not give its own; null when not registered. */
  vatNumber: z.string().nullable(),
  invoicePrefix: z.string(),
  invoiceNextNumber: z.number().int(),
  receiptsEnabled: z.boolean(),
  payoutSchedule: payoutScheduleSchema,
  payoutDestination: payoutDestinationSchema.nullable(),
  liveProviders: z.boolean(),
})
export type Settings = z.infer<typeof settingsSchema>

/**
 * The invoice counter's range (numbers are padded to at least 4 digits): the
 * next number, as Settings and a state file hold it. The last number a send
 * may issue is one less, so that the counter after it is still in range.
 */
export const MAX_INVOICE_NUMBER = 999_999_999

export const updateSettingsRequestSchema = z.strictObject({
  displayName: textLineSchema(100).optional(),
  /** null removes it. */
  vatNumber: vatNumberSchema.nullable().optional(),
  invoicePrefix: invoicePrefixSchema.optional(),
  invoiceNextNumber: z.number().int().min(1).max(MAX_INVOICE_NUMBER).optional(),
  receiptsEnabled: z.boolean().optional(),
  payoutSchedule: payoutScheduleSchema.optional(),
  payoutDestination: payoutDestinationSchema.nullable().optional(),
  liveProviders: z.boolean().optional(),
})
export type UpdateSettingsRequest = z.infer<typeof updateSettingsRequestSchema>
