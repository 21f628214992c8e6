// The enumerations and bounds of the schemas as plain values, in a module
// without zod: CLI commands use them as flag options and to check a flag
// before sending it, and importing them must not load zod and build every
// schema (about 50 ms of each command's start).

/** The longest single clock advance, in days: long enough for a year of settlement runs. */
export const MAX_ADVANCE_DAYS = 400
/** The same in milliseconds, as the API's `ms` field takes it. */
export const MAX_ADVANCE_MS = MAX_ADVANCE_DAYS * 24 * 60 * 60 * 1000

export const MODES = ['test', 'live'] as const
export const TIERS = ['business', 'individual'] as const
export const PAYOUT_SCHEDULES = ['daily', 'weekly', 'fortnightly', 'monthly', 'manual'] as const
export const KEY_TYPES = ['secret', 'publishable'] as const
export const SESSION_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const
/** The currencies a Checkout Session's price may be quoted in, converted to FJD at creation. */
export const QUOTE_CURRENCIES = ['USD', 'AUD'] as const
/** The payment providers a customer picks from. */
export const PROVIDERS = ['card', 'mpaisa', 'mycash'] as const
/** How the customer stand-in ends a payment (`_sim` pay of a session or an invoice). */
export const PAYMENT_OUTCOMES = ['succeeded', 'failed', 'processing'] as const

export const EVENT_TYPES = [
  'webhook.verified',
  'checkout_session.succeeded',
  'checkout_session.failed',
  'checkout_session.cancelled',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'disbursement.sent',
  'disbursement.failed',
] as const

/** What an API fault does to a request it matches (docs/faults-and-doctor.md). */
export const API_FAULT_ACTIONS = ['error', 'delay', 'reset', 'lose_response'] as const
/** The statuses an `error` fault may answer: the server-side failures a client must retry. */
export const API_FAULT_STATUSES = [500, 502, 503, 504] as const

/** How much a doctor finding matters: an error fails `bula doctor` (exit 1), a warning does not. */
export const DOCTOR_SEVERITIES = ['error', 'warning'] as const

/**
 * The days an invoice's due date may fall on. The spec sets no bound relative
 * to today, so a past day stays allowed (a draft may record a debt already
 * due); the years only keep out what no invoice means (`0000-01-01`, `9999-12-31`).
 * The merchant's clock runs from 400 days behind real time to a century
 * ahead, so every day it can show falls inside them.
 */
export const DUE_DATE_RANGE = { first: '2000-01-01', last: '2199-12-31' } as const

/** Whether a `YYYY-MM-DD` day (which compares as text) falls within DUE_DATE_RANGE: the API's dueDateSchema and the CLI's `--due` both ask this. */
export const isInDueDateRange = (day: string): boolean => day >= DUE_DATE_RANGE.first && day <= DUE_DATE_RANGE.last
