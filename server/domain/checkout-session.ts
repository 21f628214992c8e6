import { invalidState } from '../../src/errors.js'
import { SESSION_EXPIRY_MS } from '../../src/session-expiry.js'
import type {
  CheckoutSession,
  PaymentIntent,
  Provider,
  SessionStatus,
} from '../../src/schemas/index.js'
import type { CheckoutSessionRecord, PaymentIntentRecord } from './records.js'

export type { CheckoutSessionRecord, PaymentIntentRecord } from './records.js'

export const MIN_EXPIRY_MS = SESSION_EXPIRY_MS.min
export const MAX_EXPIRY_MS = SESSION_EXPIRY_MS.max
/** customerEmail is kept this long after the session ends (spec, Limits). */
export const EMAIL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000

/** Only `pending` ever changes (spec, States). */
const TRANSITIONS: Record<SessionStatus, readonly SessionStatus[]> = {
  pending: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
}

/**
 * The payment a session holds in each of its statuses, as paying, cancelling
 * and expiry leave it: a pending session has none yet or one processing; a
 * succeeded or failed one has the payment that ended it, in the same status;
 * a cancelled one has none, as a session whose customer started paying is
 * never cancelled. A session has at most one payment: a failed session is
 * final (docs/simulator.md, "Payments").
 */
export const PAYMENT_OF_SESSION: Record<SessionStatus, readonly (PaymentIntentRecord['status'] | 'none')[]> = {
  pending: ['none', 'processing'],
  succeeded: ['succeeded'],
  failed: ['failed'],
  cancelled: ['none'],
}

/** Where a session's status leaves it, as a sentence reads it: "This Checkout Session has already succeeded." */
export const SESSION_STATE_WORDS: Record<SessionStatus, string> = {
  pending: 'is still pending',
  succeeded: 'has already succeeded',
  failed: 'has already failed',
  cancelled: 'was already cancelled',
}

const BECOME: Record<SessionStatus, string> = { pending: 'stay pending', succeeded: 'succeed', failed: 'fail', cancelled: 'be cancelled' }

/** The session moved to `to` at `now` (its endedAt), or invalid_state when its state machine forbids the move. */
export function transitionSession(session: CheckoutSessionRecord, to: SessionStatus, now: number): CheckoutSessionRecord {
  if (!TRANSITIONS[session.status].includes(to)) {
    throw invalidState(`Checkout Session ${session.id} ${SESSION_STATE_WORDS[session.status]}; only a pending session can ${BECOME[to]}.`)
  }
  return { ...session, status: to, endedAt: now }
}

/** From the first payment intent on, the customer has started paying (docs/simulator.md, "Payments"). */
export const paymentStarted = (session: CheckoutSessionRecord): boolean => session.paymentIntentIds.length > 0

/** Past expiresAt no payment can start (spec). */
export const isExpired = (session: CheckoutSessionRecord, now: number): boolean => now >= session.expiresAt

/** Where a session sends the customer back (redirectUrls in the services: an invoice's session leads to its invoice page). */
export type SessionRedirects = Pick<CheckoutSessionRecord, 'successUrl' | 'cancelUrl'>

export function presentSession(session: CheckoutSessionRecord, baseUrl: string, redirects: SessionRedirects = session): CheckoutSession {
  const out: CheckoutSession = {
    id: session.id,
    status: session.status,
    mode: session.mode,
    amount: session.amount,
    currency: session.currency,
    hostedUrl: `${baseUrl}/pay/${session.id}`,
    metadata: session.metadata,
    expiresAt: session.expiresAt,
    createdAt: session.createdAt,
    successUrl: redirects.successUrl,
    cancelUrl: redirects.cancelUrl,
  }
  if (session.invoiceNumber !== null) out.invoiceNumber = session.invoiceNumber
  if (session.quote !== null) out.quote = session.quote
  return out
}

export function presentPaymentIntent(intent: PaymentIntentRecord): PaymentIntent {
  const { merchantId: _merchantId, ...rest } = intent
  return rest
}

export const PROVIDER_NAMES: Record<Provider, string> = { card: 'Card', mpaisa: 'M-PAiSA', mycash: 'MyCash' }

/**
 * Appends `session_id` to a redirect URL, keeping any query it already has as
 * it was written: searchParams would re-encode all of it (`flag` → `flag=`,
 * `%20` → `+`, `/` → `%2F`), which breaks a merchant's signed or hand-read
 * query. The fragment stays after the query.
 */
export function withSessionId(url: string, sessionId: string): string {
  const parsed = new URL(url)
  const param = `session_id=${encodeURIComponent(sessionId)}`
  parsed.search = parsed.search === '' ? param : `${parsed.search.slice(1)}&${param}`
  return parsed.toString()
}
