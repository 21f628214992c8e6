import { z } from 'zod'
import { PAYMENT_OUTCOMES, PROVIDERS, QUOTE_CURRENCIES, SESSION_STATUSES } from './enums.js'
import { emailAddressSchema, httpsUrlSchema, integerQuerySchema, limitQuerySchema, modeSchema, timestampSchema } from './common.js'

export { MAX_AMOUNT } from '../money.js'
import { MAX_AMOUNT } from '../money.js'
import { SESSION_EXPIRY_MS } from '../session-expiry.js'

export const sessionStatusSchema = z.enum(SESSION_STATUSES)
export type SessionStatus = z.infer<typeof sessionStatusSchema>

export const quoteCurrencySchema = z.enum(QUOTE_CURRENCIES)
export type QuoteCurrency = z.infer<typeof quoteCurrencySchema>

export const providerSchema = z.enum(PROVIDERS)
export type Provider = z.infer<typeof providerSchema>

export const METADATA_MAX_PAIRS = 20
export const METADATA_MAX_KEY = 40
export const METADATA_MAX_VALUE = 500

export const metadataSchema = z
  .record(z.string().min(1).max(METADATA_MAX_KEY), z.string().max(METADATA_MAX_VALUE))
  .refine((value) => Object.keys(value).length <= METADATA_MAX_PAIRS, { message: `at most ${METADATA_MAX_PAIRS} pairs` })
  .meta({ maxProperties: METADATA_MAX_PAIRS })

/**
 * CreateCheckoutSessionRequest. Rules that depend on the mode or the clock
 * (HTTPS outside test mode, the expiresAt window, quotes) are checked by the
 * service; this schema checks shape and limits.
 */
export const createCheckoutSessionRequestSchema = z
  .strictObject({
    amount: z.number().int().min(1).max(MAX_AMOUNT).optional(),
    currency: z.literal('FJD').optional(),
    quote: z
      .strictObject({
        amount: z.number().int().min(1),
        currency: quoteCurrencySchema,
      })
      .optional(),
    successUrl: httpsUrlSchema.optional(),
    cancelUrl: httpsUrlSchema.optional(),
    metadata: metadataSchema.optional(),
    customerEmail: emailAddressSchema.optional(),
    expiresAt: timestampSchema.optional().meta({
      description: 'Unix ms on the merchant\'s clock, 30 minutes to 24 hours from now (default 24 hours).',
      // A range relative to the merchant's clock, which JSON Schema cannot state; test/fuzz/schema-driven.test.ts reads it.
      'x-bula-from-now': { minMs: SESSION_EXPIRY_MS.min, maxMs: SESSION_EXPIRY_MS.max },
    }),
  })
  .superRefine((body, ctx) => {
    if (body.quote !== undefined) {
      for (const field of ['amount', 'currency'] as const) {
        if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'send either amount and currency, or quote, never both' })
      }
    } else if (body.amount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'send amount and currency, or quote' })
    } else if (body.currency === undefined) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'currency is required with amount' })
    }
  })
  // The same rule in the document, so schema-driven clients and tools make only bodies the server takes.
  .meta({ oneOf: [{ required: ['amount', 'currency'] }, { required: ['quote'] }] })
export type CreateCheckoutSessionRequest = z.infer<typeof createCheckoutSessionRequestSchema>

export const checkoutSessionQuoteSchema = z.object({
  amount: z.number().int(),
  currency: quoteCurrencySchema,
  /** FJD per 1 unit of `currency`, a decimal string. */
  rate: z.string(),
  asOf: timestampSchema,
})
export type CheckoutSessionQuote = z.infer<typeof checkoutSessionQuoteSchema>

export const checkoutSessionSchema = z.object({
  id: z.string(),
  status: sessionStatusSchema,
  mode: modeSchema,
  amount: z.number().int(),
  currency: z.literal('FJD'),
  hostedUrl: z.string(),
  metadata: z.record(z.string(), z.string()),
  expiresAt: timestampSchema,
  invoiceNumber: z.string().optional(),
  quote: checkoutSessionQuoteSchema.optional(),
  // Additive fields:
  createdAt: timestampSchema,
  successUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
})
export type CheckoutSession = z.infer<typeof checkoutSessionSchema>

export const listCheckoutSessionsQuerySchema = z.strictObject({
  limit: limitQuerySchema().optional(),
  cursor: z.string().min(1).max(200).optional(),
  status: sessionStatusSchema.optional(),
  from: integerQuerySchema('from').optional(),
  to: integerQuerySchema('to').optional(),
})
export type ListCheckoutSessionsQuery = z.infer<typeof listCheckoutSessionsQuerySchema>

export const checkoutSessionListSchema = z.object({
  data: z.array(checkoutSessionSchema),
  nextCursor: z.string().nullable(),
})
export type CheckoutSessionList = z.infer<typeof checkoutSessionListSchema>

/** The customer stand-in (docs/simulator.md, "Payments"). */
export const paySessionRequestSchema = z.strictObject({
  outcome: z.enum(PAYMENT_OUTCOMES),
  provider: providerSchema.optional(),
})
export type PaySessionRequest = z.infer<typeof paySessionRequestSchema>

export const paymentIntentStatusSchema = z.enum(['processing', 'succeeded', 'failed'])

export const paymentIntentSchema = z.object({
  id: z.string(),
  checkoutSessionId: z.string(),
  mode: modeSchema,
  amount: z.number().int(),
  currency: z.literal('FJD'),
  provider: providerSchema,
  status: paymentIntentStatusSchema,
  failureReason: z.string().nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
})
export type PaymentIntent = z.infer<typeof paymentIntentSchema>

export const payResponseSchema = z.object({
  checkoutSession: checkoutSessionSchema,
  paymentIntent: paymentIntentSchema,
})
export type PayResponse = z.infer<typeof payResponseSchema>

/**
 * A quote rate: FJD per unit, a decimal string with up to 6 places, more than
 * 0 in the pattern itself (not a refinement), so the document says it too.
 */
export const rateStringSchema = z.string().regex(/^([1-9][0-9]{0,3}(\.[0-9]{1,6})?|0\.(?=[0-9]*[1-9])[0-9]{1,6})$/, 'must be a decimal more than 0, like 2.2500')
export const ratesSchema = z.object({
  USD: z.object({ rate: z.string(), asOf: timestampSchema }),
  AUD: z.object({ rate: z.string(), asOf: timestampSchema }),
})
export type Rates = z.infer<typeof ratesSchema>
export const updateRatesRequestSchema = z.strictObject({
  USD: rateStringSchema.optional(),
  AUD: rateStringSchema.optional(),
})
export type UpdateRatesRequest = z.infer<typeof updateRatesRequestSchema>
