import { z } from 'zod'
import { MAX_AMOUNT, providerSchema } from './checkout-sessions.js'
import { emailAddressSchema, integerQuerySchema, limitQuerySchema, modeSchema, textLineSchema, timestampSchema } from './common.js'
import { DUE_DATE_RANGE, PAYMENT_OUTCOMES, isInDueDateRange } from './enums.js'

// Kept here too for the simulator, which takes its values from this module (the dashboard's date field).
export { DUE_DATE_RANGE }

export const invoiceStatusSchema = z.enum(['draft', 'sent', 'paid', 'void'])
export type InvoiceStatus = z.infer<typeof invoiceStatusSchema>

export const MAX_ITEMS = 50

export const invoiceItemSchema = z.strictObject({
  description: textLineSchema(200),
  quantity: z.number().int().min(1).max(9999),
  /** FJD cents, excluding tax. */
  unitPrice: z.number().int().min(0).max(MAX_AMOUNT),
})
export type InvoiceItem = z.infer<typeof invoiceItemSchema>

/** A calendar date that exists, `YYYY-MM-DD` (Pacific/Fiji). */
export const isoDateSchema = z.iso.date()

/** An invoice's due date: a calendar date that exists, within DUE_DATE_RANGE. */
export const dueDateSchema = isoDateSchema
  .refine(isInDueDateRange, `must be a day from ${DUE_DATE_RANGE.first} to ${DUE_DATE_RANGE.last}`)
  .meta({ description: `A day that exists (Pacific/Fiji), from ${DUE_DATE_RANGE.first} to ${DUE_DATE_RANGE.last}; a past day is allowed.` })

/**
 * Up to 100, with at most 2 decimal places. A number with 2 decimals reads
 * back as itself from `toFixed(2)` (12.25, 0.29); a tolerance on `value * 100`
 * instead let through 1e-300 and 0.30000000000000004, which the Invoice then
 * echoed back and the documents printed as a different rate.
 */
export const taxPercentSchema = z
  .number()
  .min(0)
  .max(100)
  .refine((value) => Number(value.toFixed(2)) === value, 'at most 2 decimal places')
  .meta({ multipleOf: 0.01 })

/**
 * A VAT registration number: the seller's, printed on the invoice. Settings
 * hold the merchant's (`vatNumber`); an Invoice's own `vatNumber` overrides it
 * for that invoice (docs/invoices-pdf-and-page.md, "Who the VAT number belongs to").
 */
export const vatNumberSchema = textLineSchema(40)

export const invoiceFields = {
  customerName: textLineSchema(100),
  dueDate: dueDateSchema,
  items: z.array(invoiceItemSchema).min(1).max(MAX_ITEMS),
  customerEmail: emailAddressSchema,
  taxLabel: textLineSchema(40),
  taxPercent: taxPercentSchema,
  vatNumber: vatNumberSchema,
}

const taxLabelNeedsPercent = (body: { taxLabel?: string | null; taxPercent?: number }, ctx: z.RefinementCtx): void => {
  if (body.taxLabel != null && body.taxPercent === undefined) {
    ctx.addIssue({ code: 'custom', path: ['taxPercent'], message: 'taxPercent is required with taxLabel' })
  }
}

export const createInvoiceRequestSchema = z
  .strictObject({
    customerName: invoiceFields.customerName,
    dueDate: invoiceFields.dueDate,
    items: invoiceFields.items,
    customerEmail: invoiceFields.customerEmail.optional(),
    taxLabel: invoiceFields.taxLabel.optional(),
    taxPercent: invoiceFields.taxPercent.optional(),
    vatNumber: invoiceFields.vatNumber.optional(),
  })
  .superRefine(taxLabelNeedsPercent)
  .meta({ dependentRequired: { taxLabel: ['taxPercent'] } })
export type CreateInvoiceRequest = z.infer<typeof createInvoiceRequestSchema>

/** Draft edits through the dashboard stand-in; `null` clears an optional field. No cap here: send checks it. */
export const updateInvoiceRequestSchema = z.strictObject({
  customerName: invoiceFields.customerName.optional(),
  dueDate: invoiceFields.dueDate.optional(),
  items: invoiceFields.items.optional(),
  customerEmail: invoiceFields.customerEmail.nullable().optional(),
  taxLabel: invoiceFields.taxLabel.nullable().optional(),
  taxPercent: invoiceFields.taxPercent.optional(),
  vatNumber: invoiceFields.vatNumber.nullable().optional(),
})
export type UpdateInvoiceRequest = z.infer<typeof updateInvoiceRequestSchema>

export const invoiceSchema = z.object({
  id: z.number().int(),
  number: z.string().nullable(),
  status: invoiceStatusSchema,
  overdue: z.boolean(),
  mode: modeSchema,
  customerName: z.string(),
  customerEmail: z.string().nullable(),
  items: z.array(invoiceItemSchema),
  taxLabel: z.string().nullable(),
  taxPercent: z.number(),
  /** As given on this Invoice (the spec's field): null when it uses the merchant's number from Settings. */
  vatNumber: z.string().nullable(),
  dueDate: z.string(),
  subtotal: z.number().int(),
  tax: z.number().int(),
  total: z.number().int(),
  url: z.string(),
  pdfUrl: z.string().nullable(),
  createdAt: timestampSchema,
  sentAt: timestampSchema.nullable(),
  paidAt: timestampSchema.nullable(),
  // Additive:
  voidedAt: timestampSchema.nullable(),
})
export type Invoice = z.infer<typeof invoiceSchema>

/** The highest Invoice id the API takes, in a path or a cursor (12 digits). */
export const MAX_INVOICE_ID = 999_999_999_999

export const listInvoicesQuerySchema = z.strictObject({
  limit: limitQuerySchema().optional(),
  starting_after: integerQuerySchema('starting_after', { min: 1, max: MAX_INVOICE_ID }, 'an Invoice id').optional(),
})
export type ListInvoicesQuery = z.infer<typeof listInvoicesQuerySchema>

export const invoiceListSchema = z.object({ data: z.array(invoiceSchema), hasMore: z.boolean() })
export type InvoiceList = z.infer<typeof invoiceListSchema>

export const payInvoiceRequestSchema = z.strictObject({
  outcome: z.enum(PAYMENT_OUTCOMES),
  provider: providerSchema.optional(),
})
