import { apiError } from '../domain/error-catalog.js'
import { invalidRequest, notFound } from '../../src/errors.js'
import {
  MAX_AMOUNT,
  type CheckoutSession,
  type CheckoutSessionList,
  type CreateCheckoutSessionRequest,
  type ListCheckoutSessionsQuery,
  type Mode,
  type PayResponse,
  type PaySessionRequest,
} from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import {
  EMAIL_RETENTION_MS,
  MAX_EXPIRY_MS,
  MIN_EXPIRY_MS,
  PROVIDER_NAMES,
  SESSION_STATE_WORDS,
  isExpired,
  paymentStarted,
  presentPaymentIntent,
  presentSession,
  transitionSession,
  type CheckoutSessionRecord,
  type PaymentIntentRecord,
  type SessionRedirects,
} from '../domain/checkout-session.js'
import type { MerchantRecord } from '../domain/merchant.js'
import { cannotPayMessage, invoicePageUrl, markPaid } from '../domain/invoice.js'
import { isAllowedUrl } from '../domain/urls.js'
import { convertToFjd } from '../domain/money.js'
import { recordEvent } from '../events/event-log.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'
import { safe, withoutBidiControls } from '../templates.js'
import { findStoredResult, replayRecord, runIdempotent, type IdempotentResult } from './idempotency.js'
import { EXPIRE_JOB, PURGE_EMAIL_JOB } from '../clock/targeted-jobs.js'
import { sendEmail } from './outbox.js'
import { formatFjd } from '../../src/money.js'
import { formatTime } from '../../src/time.js'
import { isJsonObject } from '../../src/json.js'

export const CREATE_ROUTE = 'POST /v1/checkout-sessions'

/**
 * Where a session sends the customer back. An invoice's session leads to its
 * invoice page at this simulator's address, which may not be the one it was
 * opened at (another `--port`, an imported file): the address stored then is
 * not read. Any other session leads to the merchant's own URLs.
 */
export function redirectUrls(ctx: ServiceContext, session: CheckoutSessionRecord): SessionRedirects {
  const invoice = session.invoiceId === null ? undefined : ctx.store.get('invoices', session.invoiceId)
  if (!invoice) return session
  const page = invoicePageUrl(invoice, ctx.urls.base)
  return { successUrl: page, cancelUrl: page }
}

const present = (ctx: ServiceContext, session: CheckoutSessionRecord): CheckoutSession => presentSession(session, ctx.urls.base, redirectUrls(ctx, session))

/** What makes two creates "the same request" for Idempotency-Key (spec: amount, currency or quote). */
type CreateFingerprint = Pick<CreateCheckoutSessionRequest, 'amount' | 'currency' | 'quote'>
/**
 * Strict equality, so a body the schema refused compares as sent: `"1500"`
 * is not 1500, and a quote of `null` or `{}` is not the absent one (which
 * `quote?.amount` alone would take it for).
 */
const sameCreate = (a: CreateFingerprint, b: CreateFingerprint): boolean =>
  a.amount === b.amount &&
  a.currency === b.currency &&
  (a.quote === undefined) === (b.quote === undefined) &&
  a.quote?.amount === b.quote?.amount &&
  a.quote?.currency === b.quote?.currency

function checkRedirectUrl(ctx: ServiceContext, url: string | undefined, param: string, mode: Mode): void {
  if (url !== undefined && !isAllowedUrl(url, mode, ctx.allowedHosts)) {
    throw invalidRequest(
      mode === 'test' ? `${param} must be HTTPS (or http on localhost in test mode).` : `${param} must be HTTPS in live mode.`,
      param,
    )
  }
}

/** The FJD amount and locked quote, checked against the mode, tier and cap. */
function priceOf(merchant: MerchantRecord, mode: Mode, request: CreateCheckoutSessionRequest): Pick<CheckoutSessionRecord, 'amount' | 'quote'> {
  if (!request.quote) return { amount: request.amount!, quote: null }
  if (mode === 'live') throw apiError('quote_unavailable_in_live_mode', 'Quotes are available in test mode only.', { param: 'quote' })
  if (merchant.tier !== 'business') throw apiError('business_only', 'Quotes need a Business account.', { param: 'quote' })
  const { rate, asOf } = merchant.quoteRates[request.quote.currency]
  const amount = convertToFjd(request.quote.amount, rate)
  if (amount > MAX_AMOUNT) {
    throw invalidRequest(`The quote converts to ${formatFjd(amount)}; a Checkout Session must be under FJ$5,000.00.`, 'quote.amount')
  }
  if (amount < 1) throw invalidRequest('The quote converts to less than one cent.', 'quote.amount')
  return { amount, quote: { amount: request.quote.amount, currency: request.quote.currency, rate, asOf } }
}

/** Makes a pending session and schedules its expiry; also used for invoice payments. */
export function openSession(
  ctx: ServiceContext,
  merchant: MerchantRecord,
  mode: Mode,
  fields: Pick<
    CheckoutSessionRecord,
    | 'amount'
    | 'quote'
    | 'metadata'
    | 'successUrl'
    | 'cancelUrl'
    | 'customerEmail'
    | 'invoiceNumber'
    | 'invoiceId'
    | 'createdAt'
    | 'expiresAt'
  >,
): CheckoutSessionRecord {
  if (mode === 'live' && !merchant.settings.liveProviders) {
    throw apiError('live_mode_unavailable', 'No Provider takes live payments for this account: turn on live Providers in Settings.')
  }
  const session: CheckoutSessionRecord = {
    id: newId('cs'),
    merchantId: merchant.id,
    mode,
    status: 'pending',
    currency: 'FJD',
    endedAt: null,
    paymentIntentIds: [],
    ...fields,
  }
  ctx.store.put('checkoutSessions', session)
  scheduleSessionJobs(ctx, session)
  return session
}

/**
 * What a session waits for on its merchant's clock: expiry while pending,
 * and the purge of the customer's e-mail 30 days after it ended. Both
 * follow from the session alone (registerCheckoutJobs), so they are derived
 * jobs, kept in memory and rebuilt from the sessions at start-up; an
 * imported session gets them too.
 */
export function scheduleSessionJobs(ctx: ServiceContext, session: CheckoutSessionRecord): void {
  ctx.clock.track('checkoutSessions', session)
}

export function createSession(
  ctx: ServiceContext,
  caller: Caller,
  request: CreateCheckoutSessionRequest,
  idempotencyKey: string,
): IdempotentResult<CheckoutSession> {
  const { merchant, mode } = caller
  const now = ctx.clock.now(merchant.id)
  ctx.rateLimits.take(caller.key.id, caller.key.type, now)
  const fingerprint: CreateFingerprint = { amount: request.amount, currency: request.currency, quote: request.quote }
  return runIdempotent(ctx, { caller, route: CREATE_ROUTE, key: idempotencyKey }, fingerprint, sameCreate, () => {
    checkRedirectUrl(ctx, request.successUrl, 'successUrl', mode)
    checkRedirectUrl(ctx, request.cancelUrl, 'cancelUrl', mode)
    const expiresAt = request.expiresAt ?? now + MAX_EXPIRY_MS
    if (expiresAt < now + MIN_EXPIRY_MS || expiresAt > now + MAX_EXPIRY_MS) {
      throw invalidRequest(`expiresAt must be 30 minutes to 24 hours from now (${now}, merchant clock).`, 'expiresAt')
    }
    const session = openSession(ctx, merchant, mode, {
      ...priceOf(merchant, mode, request),
      metadata: request.metadata ?? {},
      successUrl: request.successUrl ?? null,
      cancelUrl: request.cancelUrl ?? null,
      // Test mode validates the address and drops it: nothing is sent (spec).
      customerEmail: mode === 'live' ? (request.customerEmail ?? null) : null,
      invoiceNumber: null,
      invoiceId: null,
      createdAt: now,
      expiresAt,
    })
    return { status: 201, body: present(ctx, session) }
  })
}

/**
 * A create whose body the schema refused, answered as a repeat of its key
 * if the key has a stored result (findStoredResult): the replay when the raw
 * body's amount, currency and quote are the stored ones, else 409. It is
 * counted against the rate limit as any replay is. `undefined` when the key
 * has no stored result: the refusal stands, and nothing is counted.
 */
export function replayCreateSession(ctx: ServiceContext, caller: Caller, body: unknown, idempotencyKey: string): IdempotentResult<CheckoutSession> | undefined {
  const record = findStoredResult(ctx, { caller, route: CREATE_ROUTE, key: idempotencyKey })
  if (!record) return undefined
  ctx.rateLimits.take(caller.key.id, caller.key.type, ctx.clock.now(caller.merchant.id))
  const raw = isJsonObject(body) ? body : {}
  // Unvalidated: sameCreate compares strictly, so a field of the wrong type never matches a stored one.
  const fingerprint = { amount: raw.amount, currency: raw.currency, quote: raw.quote } as CreateFingerprint
  return replayRecord(record, fingerprint, sameCreate)
}

function ownSession(ctx: ServiceContext, caller: Caller, id: string): CheckoutSessionRecord {
  const session = ctx.store.get('checkoutSessions', id)
  if (!session || session.merchantId !== caller.merchant.id || session.mode !== caller.mode) throw notFound('Checkout Session')
  return session
}

export const getSession = (ctx: ServiceContext, caller: Caller, id: string): CheckoutSession => present(ctx, ownSession(ctx, caller, id))

/** The opaque cursor: the creation time and id of the last session on the page. */
const encodeCursor = (session: CheckoutSessionRecord): string =>
  Buffer.from(JSON.stringify([session.createdAt, session.id])).toString('base64url')

function decodeCursor(cursor: string): [number, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value) && value.length === 2 && Number.isInteger(value[0]) && typeof value[1] === 'string') {
      return value as [number, string]
    }
  } catch {
    // falls through to the 400 below
  }
  throw invalidRequest('cursor is not a nextCursor this API returned.', 'cursor')
}

/** Index of the first id whose session was created after `time` (ids are in creation order). */
function upperBound(ctx: ServiceContext, ids: readonly string[], time: number): number {
  let low = 0
  let high = ids.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (ctx.store.get('checkoutSessions', ids[mid]!)!.createdAt <= time) low = mid + 1
    else high = mid
  }
  return low
}

/** Newest first. The group index keeps creation order, so pages cost O(log n + page), whatever is stored. */
export function listSessions(ctx: ServiceContext, caller: Caller, query: ListCheckoutSessionsQuery): CheckoutSessionList {
  const limit = query.limit ?? 10
  const ids = ctx.store.group('checkoutSessions', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
  let end = query.to === undefined ? ids.length : upperBound(ctx, ids, query.to)
  if (query.cursor !== undefined) {
    const [createdAt, id] = decodeCursor(query.cursor)
    let position = upperBound(ctx, ids, createdAt) - 1
    while (position >= 0 && ids[position] !== id) position--
    const found = ctx.store.get('checkoutSessions', ids[position] ?? '')
    if (position < 0 || found?.createdAt !== createdAt) throw invalidRequest('cursor does not point at a session of this merchant and mode.', 'cursor')
    end = Math.min(end, position)
  }
  const data: CheckoutSessionRecord[] = []
  let last: CheckoutSessionRecord | undefined
  let more = false
  for (let i = end - 1; i >= 0; i--) {
    const session = ctx.store.get('checkoutSessions', ids[i]!)!
    if (query.from !== undefined && session.createdAt < query.from) break
    if (query.status !== undefined && session.status !== query.status) continue
    if (data.length === limit) {
      more = true
      break
    }
    data.push(session)
    last = session
  }
  return { data: data.map((session) => present(ctx, session)), nextCursor: more && last ? encodeCursor(last) : null }
}

/** Ends a pending session: the status change, its event, and the e-mail retention clock. */
export function endSession(
  ctx: ServiceContext,
  session: CheckoutSessionRecord,
  to: 'succeeded' | 'failed' | 'cancelled',
): CheckoutSessionRecord {
  const now = ctx.clock.now(session.merchantId)
  const ended = transitionSession(session, to, now)
  ctx.store.put('checkoutSessions', ended)
  recordEvent(ctx, ended.merchantId, ended.mode, `checkout_session.${to}`, present(ctx, ended))
  scheduleSessionJobs(ctx, ended)
  return ended
}

export function cancelSession(ctx: ServiceContext, caller: Caller, id: string): CheckoutSession {
  const session = ownSession(ctx, caller, id)
  if (session.status === 'pending' && paymentStarted(session)) {
    throw apiError('payment_in_progress', 'The customer has started paying; the session can no longer be cancelled.')
  }
  return present(ctx, endSession(ctx, session, 'cancelled'))
}

/** The session a hosted page or the customer stand-in acts on, with its merchant. */
export function sessionForCustomer(ctx: ServiceContext, id: string): { session: CheckoutSessionRecord; merchant: MerchantRecord } {
  const session = ctx.store.get('checkoutSessions', id)
  const merchant = session && ctx.store.get('merchants', session.merchantId)
  if (!session || !merchant) throw notFound('Checkout Session')
  return { session, merchant }
}

/** The customer stand-in's check that the caller owns the session (404 otherwise). */
export const sessionOfCaller = (ctx: ServiceContext, caller: Caller, id: string): CheckoutSessionRecord => ownSession(ctx, caller, id)

function sendReceipt(ctx: ServiceContext, session: CheckoutSessionRecord, intent: PaymentIntentRecord): void {
  const merchant = ctx.store.get('merchants', session.merchantId)
  if (!merchant || session.mode !== 'live' || session.customerEmail === null || !merchant.settings.receiptsEnabled) return
  // A subject and a text part have no markup to isolate the name with: its bidi controls are dropped (docs/security.md).
  const displayName = withoutBidiControls(merchant.settings.displayName)
  const values = {
    displayName,
    amount: formatFjd(session.amount),
    paidAt: formatTime(ctx.clock.now(merchant.id)),
    provider: PROVIDER_NAMES[intent.provider],
    sessionId: session.id,
  }
  const invoice = session.invoiceNumber
  sendEmail(ctx, merchant.id, session.mode, {
    kind: 'receipt',
    to: session.customerEmail,
    attachments: [],
    subject: `Your receipt from ${displayName}`,
    relatedId: session.id,
    html: ctx.templates.render('emails/receipt.html', {
      ...values,
      invoiceRow: invoice
        ? safe(ctx.templates.render('emails/receipt-invoice-row.html', { invoiceNumber: invoice }))
        : safe(''),
    }),
    text: ctx.templates.renderText('emails/receipt.txt', { ...values, invoiceLine: invoice ? `Invoice: ${invoice}\n` : '' }),
  })
}

/** As on the hosted page, where a live session shows no outcome control: nothing can decline a live payment here. */
export function refuseLiveOutcome(mode: Mode, request: PaySessionRequest): void {
  if (mode === 'live' && request.outcome !== 'succeeded') {
    throw invalidRequest(`A live payment cannot be made to end ${request.outcome}: outcomes are test mode's, and a live payment succeeds.`, 'outcome')
  }
}

/** A live payment starts only while a Provider takes live payments for the merchant (Settings, liveProviders). */
export function refuseLivePaymentStart(merchant: MerchantRecord, mode: Mode): void {
  if (mode === 'live' && !merchant.settings.liveProviders) {
    throw apiError('live_mode_unavailable', 'No Provider takes live payments for this account right now.')
  }
}

/**
 * The customer pays: one path for the hosted page and `POST
 * /_sim/checkout-sessions/{id}/pay` (docs/simulator.md, "Payments"). "processing" holds the
 * intent there; a later call with "succeeded" or "failed" finishes it.
 */
export function paySession(ctx: ServiceContext, sessionId: string, request: PaySessionRequest): PayResponse {
  const { session, merchant } = sessionForCustomer(ctx, sessionId)
  const now = ctx.clock.now(merchant.id)
  refuseLiveOutcome(session.mode, request)
  if (session.status !== 'pending') throw apiError('invalid_state', `This Checkout Session ${SESSION_STATE_WORDS[session.status]}.`)
  const currentId = session.paymentIntentIds.at(-1)
  let intent = currentId === undefined ? undefined : ctx.store.get('paymentIntents', currentId)
  const invoice = session.invoiceId === null ? undefined : ctx.store.get('invoices', session.invoiceId)
  if (invoice && invoice.status !== 'sent') throw apiError('invalid_state', cannotPayMessage(invoice))
  if (!intent) {
    if (isExpired(session, now)) throw apiError('invalid_state', 'This Checkout Session has expired; no payment can start.')
    refuseLivePaymentStart(merchant, session.mode)
    intent = {
      id: newId('pi'),
      merchantId: merchant.id,
      checkoutSessionId: session.id,
      mode: session.mode,
      amount: session.amount,
      currency: 'FJD',
      provider: request.provider ?? 'card',
      status: 'processing',
      failureReason: null,
      createdAt: now,
      updatedAt: now,
    }
    ctx.store.put('paymentIntents', intent)
    ctx.store.put('checkoutSessions', { ...session, paymentIntentIds: [...session.paymentIntentIds, intent.id] })
    recordEvent(ctx, merchant.id, session.mode, 'payment.processing', presentPaymentIntent(intent))
  } else if (request.outcome === 'processing') {
    throw apiError('invalid_state', `Payment ${intent.id} is already processing; finish it with "succeeded" or "failed".`)
  }
  let current = ctx.store.get('checkoutSessions', session.id)!
  if (request.outcome !== 'processing') {
    intent = {
      ...intent,
      status: request.outcome,
      failureReason: request.outcome === 'failed' ? 'Declined by the Provider (test outcome).' : null,
      updatedAt: now,
    }
    ctx.store.put('paymentIntents', intent)
    recordEvent(ctx, merchant.id, session.mode, `payment.${request.outcome}`, presentPaymentIntent(intent))
    current = endSession(ctx, current, request.outcome)
    if (request.outcome === 'succeeded') {
      const latest = ctx.store.get('merchants', merchant.id)!
      ctx.store.put('merchants', { ...latest, balances: { ...latest.balances, [session.mode]: latest.balances[session.mode] + session.amount } })
      if (invoice) ctx.store.put('invoices', markPaid(invoice, now))
      sendReceipt(ctx, current, intent)
    }
  }
  return { checkoutSession: present(ctx, current), paymentIntent: presentPaymentIntent(intent) }
}

export function registerCheckoutJobs(ctx: ServiceContext): void {
  ctx.clock.derive(EXPIRE_JOB, {
    collection: 'checkoutSessions',
    dueAt: (session) => (session.status === 'pending' ? session.expiresAt : undefined),
    run: (session) => {
      // A customer who started paying before expiry may still finish.
      if (paymentStarted(session)) return
      endSession(ctx, session, 'cancelled')
      return `Checkout Session ${session.id} expired and was cancelled`
    },
  })
  ctx.clock.derive(PURGE_EMAIL_JOB, {
    collection: 'checkoutSessions',
    dueAt: (session) => (session.customerEmail !== null && session.endedAt !== null ? session.endedAt + EMAIL_RETENTION_MS : undefined),
    run: (session) => {
      ctx.store.put('checkoutSessions', { ...session, customerEmail: null })
      return `customer e-mail of Checkout Session ${session.id} purged (30 days after it ended)`
    },
  })
}
