import { z } from 'zod'
import { invalidRequest } from '../../src/errors.js'
import { fieldPath } from '../../src/field-path.js'
import { isJsonText } from '../../src/json.js'
import { EVENT_TYPES, KEY_TYPES } from '../../src/schemas/enums.js'
import {
  MAX_AMOUNT,
  MAX_INVOICE_NUMBER,
  emailAddressSchema,
  deliveryStatusSchema,
  invoiceFields,
  invoicePrefixSchema,
  invoiceStatusSchema,
  isoDateSchema,
  metadataSchema,
  modeSchema,
  paymentIntentStatusSchema,
  payoutDestinationSchema,
  payoutScheduleSchema,
  providerSchema,
  quoteCurrencySchema,
  rateStringSchema,
  sessionStatusSchema,
  textLineSchema,
  tierSchema,
  vatNumberSchema,
  verificationStatusSchema,
  webhookEndpointStatusSchema,
  webhookFaultsSchema,
} from '../../src/schemas/index.js'

/**
 * The documents the store holds, one strict schema per collection. The
 * record types below are inferred from these schemas, so what the services
 * write and what an import is checked against are the same thing
 * (docs/security.md, "Imports"). Bounds are the API's own, so no stored
 * number can break the arithmetic of the clock or of a date.
 */

const DAY = 24 * 60 * 60 * 1000

/** The end of the year 9999, UTC: every stored time still formats as a date. */
export const MAX_TIMESTAMP = 253_402_300_799_999
/** How far a merchant's clock may run ahead of real time: a century, far past any test's need. */
export const MAX_CLOCK_OFFSET_MS = 100 * 366 * DAY
/**
 * How far it may run behind: an advance by `ms` takes the real time it
 * waited on receivers off the offset, so that the clock moves by exactly
 * `ms` (docs/simulator.md, "The clock"). When the wait was the longer, the
 * clock falls behind real time. 400 days of waiting is past any run.
 */
export const MIN_CLOCK_OFFSET_MS = -400 * DAY

const time = z.number().int().min(0).max(MAX_TIMESTAMP)
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)
const text = (max: number) => z.string().max(max)
const perMode = <S extends z.ZodType>(schema: S) => z.strictObject({ test: schema, live: schema })

// RFC 6838 names and RFC 9110 parameters, in ASCII without controls: a type is sent as a Content-Type header.
const MEDIA_NAME = '[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}'
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\t \\x21-\\x7E])*"'
/**
 * `application/pdf`, `text/plain; charset=utf-8`: a media type, as the
 * simulator writes it (an Invoice's PDF, a verification document's image).
 * Text alone let an imported e-mail's attachment be
 * `text/html\r\nSet-Cookie: …`, and the dashboard's download answered 500
 * when Node refused it as a header.
 */
const mediaType = text(100).regex(new RegExp(`^${MEDIA_NAME}/${MEDIA_NAME}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`), 'must be a media type (type/subtype, then any ;name=value parameters)')

/** `cs_4fQ…`: the ids server/ids.ts makes, with their type prefix. */
export const idOf = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting ${prefix}_`)
const merchantId = idOf('ms')

/** JSON nesting kept by an event's object: far more than any resource has, far less than a stack can take. */
const MAX_JSON_DEPTH = 32

/** Depth of a JSON value, walked without recursion so no input can exhaust the stack. */
export function jsonDepth(value: unknown): number {
  let deepest = 0
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (node === null || typeof node !== 'object') continue
    if (depth + 1 > deepest) deepest = depth + 1
    if (deepest > MAX_JSON_DEPTH) return deepest
    for (const child of Object.values(node)) stack.push([child, depth + 1])
  }
  return deepest
}

const jsonObject = z
  .record(z.string(), z.unknown())
  .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, `must nest at most ${MAX_JSON_DEPTH} levels`)

// Merchants

const verificationDocumentRecordSchema = z.strictObject({
  contentType: mediaType,
  bytes: count,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})
export type VerificationDocumentRecord = z.infer<typeof verificationDocumentRecordSchema>

export const verificationRecordSchema = z.strictObject({
  status: verificationStatusSchema,
  /** Only the last three digits are kept. */
  tinLast3: z.string().regex(/^[0-9]{3}$/).nullable(),
  documents: z.record(text(40), verificationDocumentRecordSchema),
  submittedAt: time.nullable(),
  reviewedAt: time.nullable(),
  rejectionReason: text(500).nullable(),
})
export type VerificationRecord = z.infer<typeof verificationRecordSchema>

export const merchantSettingsRecordSchema = z.strictObject({
  displayName: textLineSchema(100),
  /** The seller's VAT number on invoices; absent in data written before it existed, which means none. */
  vatNumber: vatNumberSchema.nullable().optional(),
  invoicePrefix: invoicePrefixSchema,
  /** Invoice numbers are counted per mode. */
  invoiceNextNumber: perMode(z.number().int().min(1).max(MAX_INVOICE_NUMBER)),
  /** The highest number already used, so the counter can never be set back onto it. */
  invoiceLastNumber: perMode(z.number().int().min(0).max(MAX_INVOICE_NUMBER)),
  receiptsEnabled: z.boolean(),
  payoutSchedule: payoutScheduleSchema,
  payoutDestination: payoutDestinationSchema.nullable(),
  liveProviders: z.boolean(),
})
export type MerchantSettingsRecord = z.infer<typeof merchantSettingsRecordSchema>

const rateRecordSchema = z.strictObject({ rate: rateStringSchema, asOf: time })
export const quoteRatesRecordSchema = z.strictObject({ USD: rateRecordSchema, AUD: rateRecordSchema })
export const webhookFaultsRecordSchema = webhookFaultsSchema.extend({ drawn: count }).nullable()
export const nextPayoutFailureSchema = z.string().trim().min(1).max(200).nullable()

export const merchantRecordSchema = z.strictObject({
  id: merchantId,
  email: text(254),
  name: textLineSchema(100),
  tier: tierSchema,
  createdAt: time,
  /** The merchant's clock is real time plus this offset (docs/simulator.md, "The clock"). */
  clockOffsetMs: z.number().int().min(MIN_CLOCK_OFFSET_MS).max(MAX_CLOCK_OFFSET_MS),
  liveUnlocked: z.boolean(),
  /** Earned balance not yet swept into a Payout, per mode, FJD cents. */
  balances: perMode(count),
  settings: merchantSettingsRecordSchema,
  verification: verificationRecordSchema,
  /** The quote rate table (`/_sim/rates`), per merchant so parallel test suites never share it. */
  quoteRates: quoteRatesRecordSchema,
  /** Delivery faults per mode (`/_sim/webhook-faults`); null when deliveries are faithful. */
  webhookFaults: perMode(webhookFaultsRecordSchema),
  /** The pending settlement run on the merchant's clock; null on the manual schedule. */
  settlementJobId: idOf('job').nullable(),
  /** The fault control: the next live Payout fails with this reason (`/_sim/payouts/fail-next`). */
  nextPayoutFailure: nextPayoutFailureSchema,
})
export type MerchantRecord = z.infer<typeof merchantRecordSchema>

// Keys, jobs, idempotency and counters: kept by the simulator, never in a merchant's state file

export const apiKeyRecordSchema = z.strictObject({
  id: idOf('key'),
  merchantId,
  type: z.enum(KEY_TYPES),
  mode: modeSchema,
  /** SHA-256 of the plaintext: keys are long random strings, so a fast hash is enough and the plaintext is never stored. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  last4: z.string().regex(/^[0-9A-Za-z]{4}$/),
  createdAt: time,
  /** End of the rotation overlap on the merchant's clock; null while the key does not expire. */
  expiresAt: time.nullable(),
  revokedAt: time.nullable(),
  /** The key that replaced this one on rotation. */
  rotatedTo: idOf('key').nullable(),
})
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>

export const jobRecordSchema = z.strictObject({
  id: idOf('job'),
  merchantId,
  /** Merchant-clock time at which the action runs. */
  dueAt: time,
  kind: text(100),
  payload: jsonObject,
})
/** A due action on a merchant's clock, kept in the store so it survives restarts. */
export type JobRecord = z.infer<typeof jobRecordSchema>

/** JSON.parse accepts it: a stored response is parsed when it is replayed. */
const jsonText = z.string().refine(isJsonText, 'must be JSON text')

export const idempotencyRecordSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  merchantId,
  mode: modeSchema,
  route: text(200),
  createdAt: time,
  expiresAt: time,
  /** What the route compares a repeated request on (e.g. amount, currency, quote). */
  request: z.unknown(),
  status: z.number().int().min(200).max(299),
  /**
   * The response body as JSON text, in records written from 22 to 27
   * November 2026, when start-up parsed every record and one string cost it
   * less than the object tree. Records are lazy now (parsed when read), and
   * the text as a JSON string cost every create the escaping of its quotes.
   */
  response: jsonText.optional(),
  /** The response body: records written before 22 and after 27 November 2026. */
  body: z.unknown().optional(),
}).refine((record) => record.response !== undefined || record.body !== undefined, {
  message: 'a replay needs the response (or, in older records, the body)',
  path: ['response'],
})
export type IdempotencyRecord = z.infer<typeof idempotencyRecordSchema>

export const counterRecordSchema = z.strictObject({ id: text(100), last: count })
/** A sequence that never goes back, such as the integer Invoice ids. */
export type CounterRecord = z.infer<typeof counterRecordSchema>

// A merchant's objects, per mode: what a state file carries

export const checkoutSessionRecordSchema = z.strictObject({
  id: idOf('cs'),
  merchantId,
  mode: modeSchema,
  status: sessionStatusSchema,
  amount: z.number().int().min(1).max(MAX_AMOUNT),
  currency: z.literal('FJD'),
  metadata: metadataSchema,
  successUrl: z.url().max(2048).nullable(),
  cancelUrl: z.url().max(2048).nullable(),
  createdAt: time,
  expiresAt: time,
  /** Set when the session leaves `pending`. */
  endedAt: time.nullable(),
  quote: z.strictObject({ amount: count.min(1), currency: quoteCurrencySchema, rate: rateStringSchema, asOf: time }).nullable(),
  invoiceNumber: text(40).nullable(),
  /** The store id of the Invoice this session pays, if any. */
  invoiceId: z.string().regex(/^[0-9]{1,15}$/).nullable(),
  /** Live mode only, for the receipt; never returned, purged 30 days after the session ends. */
  customerEmail: emailAddressSchema.nullable(),
  paymentIntentIds: z.array(idOf('pi')).max(100),
})
export type CheckoutSessionRecord = z.infer<typeof checkoutSessionRecordSchema>

export const paymentIntentRecordSchema = z.strictObject({
  id: idOf('pi'),
  merchantId,
  checkoutSessionId: idOf('cs'),
  mode: modeSchema,
  amount: z.number().int().min(1).max(MAX_AMOUNT),
  currency: z.literal('FJD'),
  provider: providerSchema,
  status: paymentIntentStatusSchema,
  failureReason: text(500).nullable(),
  createdAt: time,
  updatedAt: time,
})
export type PaymentIntentRecord = z.infer<typeof paymentIntentRecordSchema>

export const invoiceRecordSchema = z
  .strictObject({
    /** The store id: `invoiceId` as a string. */
    id: z.string().regex(/^[1-9][0-9]{0,14}$/),
    /** The API's integer id. */
    invoiceId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    merchantId,
    mode: modeSchema,
    status: invoiceStatusSchema,
    /** `INV-…`, assigned on send. */
    number: z.string().regex(/^INV-[0-9]{1,20}$/).nullable(),
    customerName: invoiceFields.customerName,
    customerEmail: invoiceFields.customerEmail.nullable(),
    items: invoiceFields.items,
    taxLabel: invoiceFields.taxLabel.nullable(),
    taxPercent: invoiceFields.taxPercent,
    /** This invoice's own seller VAT number, overriding the merchant's in Settings; null uses that one. */
    vatNumber: invoiceFields.vatNumber.nullable(),
    /**
     * Any day that exists, wider than the API's due-date range: data files and state exports written before
     * that range was enforced may hold a draft due in year 0000, and must still open and import.
     */
    dueDate: isoDateSchema,
    /** The secret part of the hosted page's address: as long as the tokens server/ids.ts makes, so never guessable. */
    pageToken: z.string().regex(/^[0-9A-Za-z]{32,64}$/, 'must be 32 to 64 letters and digits'),
    createdAt: time,
    sentAt: time.nullable(),
    paidAt: time.nullable(),
    voidedAt: time.nullable(),
    /** Checkout Sessions opened to pay it, oldest first. */
    checkoutSessionIds: z.array(idOf('cs')).max(1000),
  })
  .refine((invoice) => invoice.id === String(invoice.invoiceId), { message: 'must be invoiceId as a string', path: ['id'] })
  // Only a draft is unsent: the hosted page, the PDF and the e-mail of any other show its number and the day it was sent.
  .refine((invoice) => invoice.status === 'draft' || invoice.number !== null, { message: 'a sent, paid or void Invoice has its number', path: ['number'] })
  .refine((invoice) => invoice.status === 'draft' || invoice.sentAt !== null, { message: 'a sent, paid or void Invoice has the time it was sent', path: ['sentAt'] })
export type InvoiceRecord = z.infer<typeof invoiceRecordSchema>

export const payoutRecordSchema = z.strictObject({
  id: idOf('po'),
  merchantId,
  mode: modeSchema,
  amount: count.min(1),
  rail: z.enum(['bank_transfer', 'wallet']),
  status: z.enum(['pending', 'paid', 'failed']),
  paidAt: time.nullable(),
  failureReason: text(500).nullable(),
  createdAt: time,
  /** When the disbursement run sent it (live mode), else null. */
  sentAt: time.nullable(),
})
export type PayoutRecord = z.infer<typeof payoutRecordSchema>

/** The most secrets an endpoint signs with at once: the current one and nine rotated ones still in their overlap. */
export const MAX_SIGNING_SECRETS = 10

export const webhookEndpointRecordSchema = z.strictObject({
  id: idOf('we'),
  merchantId,
  mode: modeSchema,
  url: z.url().max(2048),
  status: webhookEndpointStatusSchema,
  createdAt: time,
  /** Newest first. Kept usable because signing needs the secret itself. */
  secrets: z
    .array(
      z.strictObject({
        secret: z.string().regex(/^whsec_[0-9A-Za-z]{16,128}$/),
        createdAt: time,
        /** Null for the current secret; the end of the overlap for a rotated one. */
        expiresAt: time.nullable(),
      }),
    )
    .min(1)
    .max(MAX_SIGNING_SECRETS),
})
export type WebhookEndpointRecord = z.infer<typeof webhookEndpointRecordSchema>
export type SigningSecret = WebhookEndpointRecord['secrets'][number]

export const deliveryRecordSchema = z.strictObject({
  id: idOf('dlv'),
  merchantId,
  mode: modeSchema,
  eventId: idOf('evt'),
  endpointId: idOf('we'),
  /** Its endpoint's URL when it was made. */
  url: z.url().max(2048),
  status: deliveryStatusSchema,
  attempts: z
    .array(
      z.strictObject({
        at: time,
        signedAt: z.number().int().min(0).max(Math.floor(MAX_TIMESTAMP / 1000)),
        status: z.number().int().min(100).max(599).nullable(),
        error: text(500).nullable(),
        latencyMs: z.number().min(0).max(DAY),
        response: text(500),
      }),
    )
    .max(100),
  /** Merchant-clock time of the next retry while pending. */
  nextAttemptAt: time.nullable(),
  createdAt: time,
  /** A fault plan made the first attempt fail without reaching the receiver. */
  failFirstAttempt: z.boolean(),
})
export type DeliveryRecord = z.infer<typeof deliveryRecordSchema>

export const eventRecordSchema = z.strictObject({
  id: idOf('evt'),
  merchantId,
  mode: modeSchema,
  type: z.enum(EVENT_TYPES),
  createdAt: time,
  object: jsonObject,
})
export type EventRecord = z.infer<typeof eventRecordSchema>

export const emailRecordSchema = z.strictObject({
  id: idOf('em'),
  merchantId,
  mode: modeSchema,
  kind: z.enum(['receipt', 'invoice']),
  to: text(254),
  subject: text(500),
  text: z.string(),
  html: z.string(),
  createdAt: time,
  /** The object the e-mail is about, e.g. the Checkout Session id. */
  relatedId: text(100),
  attachments: z
    .array(
      z.strictObject({
        filename: text(200),
        contentType: mediaType,
        bytes: count,
        contentBase64: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
      }),
    )
    .max(10),
})
export type EmailRecord = z.infer<typeof emailRecordSchema>

/** Every collection's document schema, by collection name. */
export const RECORD_SCHEMAS = {
  merchants: merchantRecordSchema,
  apiKeys: apiKeyRecordSchema,
  idempotency: idempotencyRecordSchema,
  jobs: jobRecordSchema,
  checkoutSessions: checkoutSessionRecordSchema,
  paymentIntents: paymentIntentRecordSchema,
  events: eventRecordSchema,
  emails: emailRecordSchema,
  webhookEndpoints: webhookEndpointRecordSchema,
  deliveries: deliveryRecordSchema,
  invoices: invoiceRecordSchema,
  payouts: payoutRecordSchema,
  counters: counterRecordSchema,
} as const

export type RecordCollection = keyof typeof RECORD_SCHEMAS

/** A value checked against `schema`; the first problem is a 400 whose `param` is its path under `at`. */
export function parseAt<S extends z.ZodType>(schema: S, value: unknown, at: string): z.infer<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const unknownField = issue.code === 'unrecognized_keys'
  const param = fieldPath([...issue.path, ...(unknownField ? [issue.keys[0]!] : [])], at)
  throw invalidRequest(unknownField ? `Unknown field \`${param}\`.` : `Invalid \`${param}\`: ${issue.message}.`, param)
}

/** `invoices[3].pageToken`: where a value of a document sits in a state file, as an error's `param` names it. */
export const recordPath = (collection: string, index: number, field?: string): string =>
  `${collection}[${index}]${field === undefined ? '' : `.${field}`}`

/**
 * What is wrong with a stored document, its schema's first complaint (the
 * param names the collection and field: `invoices.items`), or null; null too
 * for a collection this version does not know, which the store keeps as is.
 */
export function recordProblem(collection: string, doc: unknown): string | null {
  if (!Object.hasOwn(RECORD_SCHEMAS, collection)) return null
  try {
    parseAt(RECORD_SCHEMAS[collection as RecordCollection], doc, collection)
    return null
  } catch (error) {
    return (error as Error).message
  }
}

/** A document checked against its collection's schema. */
export const parseRecord = <C extends RecordCollection>(collection: C, doc: unknown, index: number): z.infer<(typeof RECORD_SCHEMAS)[C]> =>
  parseAt(RECORD_SCHEMAS[collection], doc, recordPath(collection, index)) as z.infer<(typeof RECORD_SCHEMAS)[C]>
