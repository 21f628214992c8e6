// The enumerations of the schemas as plain arrays, in a module without zod:
// CLI commands use them as flag options, and importing them must not load
// zod and build every schema (about 50 ms of each command's start).

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
