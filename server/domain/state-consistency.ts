import type { z } from 'zod'
import { invalidRequest } from '../../src/errors.js'
import { formatFjd } from '../../src/money.js'
import { MAX_AMOUNT, type Mode } from '../../src/schemas/index.js'
import { MAX_EXPIRY_MS, MIN_EXPIRY_MS, PAYMENT_OF_SESSION } from './checkout-session.js'
import { MAX_HOLD_MS } from './faults.js'
import { MAX_IMPORTED_INVOICE_ID, isInvoicePageUrl, totalsOf } from './invoice.js'
import { convertToFjd } from './money.js'
import { railFor } from './payout.js'
import { recordPath, type MerchantRecord, type RECORD_SCHEMAS } from './records.js'
import { hasCredentials, isAllowedUrl } from './urls.js'
import { SECRET_OVERLAP_MS, nextRetryAt } from './webhook-endpoint.js'

/**
 * The collections of one merchant's objects of one mode: what a merchant's
 * state file holds (`GET /_sim/state`), and what a whole simulator's file
 * holds for each merchant and mode (docs/security.md, "State files").
 */
export const STATE_COLLECTIONS = [
  'checkoutSessions',
  'paymentIntents',
  'invoices',
  'payouts',
  'webhookEndpoints',
  'events',
  'deliveries',
  'emails',
] as const
export type StateCollection = (typeof STATE_COLLECTIONS)[number]

/** One merchant's objects of one mode, each list in the order of the file. */
export type ModeObjects = { [C in StateCollection]: z.infer<(typeof RECORD_SCHEMAS)[C]>[] }

/** Whose objects these are, by id and mode. */
interface Owner {
  merchantId: string
  mode: Mode
}

/** Whose objects are checked, and what the rules read of the world beyond them. */
export interface ModeScope {
  merchant: Pick<MerchantRecord, 'id' | 'tier'>
  mode: Mode
  /** The `--allowed-host` names, whose http URLs test mode takes as it takes loopback's. */
  allowedHosts: readonly string[]
  /** The Invoice that holds a hosted-page token, among every object but these. */
  invoiceWithPageToken: (token: string) => Owner | undefined
  /** A webhook endpoint by id, among every object but these: a delivery may outlive its endpoint, never name someone else's. */
  webhookEndpoint: (id: string) => Owner | undefined
  /**
   * Where the document at `index` of one of these lists sits in its file's
   * list, which a refusal names: the same place in a merchant's file, and
   * after other merchants' documents in a whole simulator's.
   */
  place: (name: StateCollection, index: number) => number
  /**
   * The merchant's clock as the import leaves it, when known (a merchant's
   * own import): no object of the file may be stamped later, as none the
   * API makes is. A whole simulator's file is checked before any clock runs.
   */
  clockNow?: number
  /** Real time as the import runs, given with clockNow: a delivery's signature is stamped with it (signedAt, in seconds). */
  wallNow?: number
}

type Refuse = (name: StateCollection, index: number, field: string, why: string) => never

const byId = <D extends { id: string }>(list: D[]) => new Map(list.map((doc) => [doc.id, doc]))

/**
 * One merchant's objects of one mode as the API itself leaves them: the
 * references between them, their payments and the balance those make,
 * their status stamps and times. Returns the balance (what the succeeded
 * payments earned and no Payout swept). A refusal is a 400 naming the file's
 * path of the first bad value (`checkoutSessions[3].customerEmail`).
 */
export function checkModeObjects(docs: ModeObjects, scope: ModeScope): number {
  const refuse: Refuse = (name, index, field, why) => {
    const at = recordPath(name, scope.place(name, index), field)
    throw invalidRequest(`${at} ${why}`, at)
  }
  checkReferences(docs, scope, refuse)
  const balance = checkPayments(docs, refuse)
  checkStamps(docs, refuse)
  if (scope.clockNow !== undefined) checkNotAfter(docs, scope.clockNow, scope.wallNow, refuse)
  return balance
}

/**
 * The times the API stamps as things happen, per collection: each at most
 * the clock (expiresAt and retry times are ahead by design). `attempts[].at`
 * is each attempt's, `quote.asOf` a quote's when there is one.
 */
const HAPPENED_AT = {
  checkoutSessions: ['createdAt', 'endedAt', 'quote.asOf'],
  paymentIntents: ['createdAt', 'updatedAt'],
  invoices: ['createdAt', 'sentAt', 'paidAt', 'voidedAt'],
  payouts: ['createdAt', 'sentAt', 'paidAt'],
  events: ['createdAt'],
  webhookEndpoints: ['createdAt', 'secrets[].createdAt'],
  deliveries: ['createdAt', 'attempts[].at'],
  emails: ['createdAt'],
} as const

/** Why a time after the clock the import sets is refused. */
export const afterTheClock = (clockNow: number): string =>
  `is after the merchant's clock as this import leaves it (${new Date(clockNow).toISOString()}): nothing the API stamps is dated ahead of it.`

/** The values a HAPPENED_AT path names in a document, each with its field path as a refusal names it (`attempts[2].at`). */
function stampsAt(doc: Record<string, unknown>, path: string): [string, unknown][] {
  const [outer, inner] = path.split('.') as [string, string | undefined]
  if (inner === undefined) return [[outer, doc[outer]]]
  if (outer.endsWith('[]')) {
    const list = outer.slice(0, -2)
    return (doc[list] as Record<string, unknown>[]).map((item, k) => [`${list}[${k}].${inner}`, item[inner]])
  }
  const nested = doc[outer] as Record<string, unknown> | null
  return nested === null ? [] : [[path, nested[inner]]]
}

/**
 * Nothing in the file happened after the clock the import sets: a payment
 * dated a day ahead of it was swept by a settlement run dated before the
 * payment, and the merchant's next export no longer imported. A delivery's
 * signature time is real time, not the merchant's: at most `wallNow`.
 */
function checkNotAfter(docs: ModeObjects, clockNow: number, wallNow: number | undefined, refuse: Refuse): void {
  for (const [name, paths] of Object.entries(HAPPENED_AT) as [keyof typeof HAPPENED_AT, readonly string[]][]) {
    ;(docs[name] as unknown as Record<string, unknown>[]).forEach((doc, i) => {
      for (const path of paths) {
        for (const [field, at] of stampsAt(doc, path)) if (typeof at === 'number' && at > clockNow) refuse(name, i, field, afterTheClock(clockNow))
      }
    })
  }
  if (wallNow === undefined) return
  docs.deliveries.forEach((delivery, i) => {
    delivery.attempts.forEach((attempt, k) => {
      if (attempt.signedAt * 1000 > wallNow) {
        refuse('deliveries', i, `attempts[${k}].signedAt`, `is after real time as this import runs (${new Date(wallNow).toISOString()}): a signature is stamped with real time.`)
      }
    })
  })
}

/** Every reference names an object of the same documents (so of one merchant and mode), and the documents obey the API's own rules. */
function checkReferences(docs: ModeObjects, scope: ModeScope, refuse: Refuse): void {
  const { merchant, mode } = scope
  const sessions = byId(docs.checkoutSessions)
  const intents = byId(docs.paymentIntents)
  const invoices = byId(docs.invoices)
  const events = byId(docs.events)
  const endpoints = byId(docs.webhookEndpoints)
  const urlAllowed = (url: string | null) => url === null || isAllowedUrl(url, mode, scope.allowedHosts)
  const notHere = 'names no object of this file.'

  docs.checkoutSessions.forEach((session, i) => {
    const invoice = session.invoiceId === null ? undefined : invoices.get(session.invoiceId)
    for (const field of ['successUrl', 'cancelUrl'] as const) {
      const url = session[field]
      if (invoice) {
        // An invoice's session was opened with its invoice page at the simulator's address then (plain http in live
        // mode too), and leads to the page at today's address (redirectUrls): the stored one must be that page.
        if (url !== null && !isInvoicePageUrl(url, invoice.pageToken)) refuse('checkoutSessions', i, field, `must be the page of Invoice ${invoice.invoiceId} (/i/its pageToken).`)
      } else if (!urlAllowed(url)) refuse('checkoutSessions', i, field, `must be HTTPS${mode === 'test' ? ' or loopback http' : ''}.`)
    }
    if (session.quote !== null && (mode === 'live' || merchant.tier !== 'business')) refuse('checkoutSessions', i, 'quote', 'is for business accounts in test mode only.')
    // Test mode validates a customer's address and drops it (createSession, checkoutForInvoice): only live mode keeps one, for the receipt.
    if (mode === 'test' && session.customerEmail !== null) refuse('checkoutSessions', i, 'customerEmail', 'must be null: test mode validates a customer\'s e-mail and drops it.')
    session.paymentIntentIds.forEach((intentId, k) => {
      if (intents.get(intentId)?.checkoutSessionId !== session.id) refuse('checkoutSessions', i, `paymentIntentIds[${k}]`, notHere)
    })
    if (session.invoiceId !== null) {
      if (!invoice) refuse('checkoutSessions', i, 'invoiceId', notHere)
      if (!invoice!.checkoutSessionIds.includes(session.id)) {
        refuse('checkoutSessions', i, 'invoiceId', `names Invoice ${invoice!.invoiceId}, whose checkoutSessionIds do not list ${session.id}.`)
      }
      if (invoice!.number !== session.invoiceNumber) refuse('checkoutSessions', i, 'invoiceNumber', 'must be the number of its invoice.')
    } else if (session.invoiceNumber !== null) refuse('checkoutSessions', i, 'invoiceNumber', 'needs an invoiceId.')
  })
  docs.paymentIntents.forEach((intent, i) => {
    const session = sessions.get(intent.checkoutSessionId)
    if (!session) refuse('paymentIntents', i, 'checkoutSessionId', notHere)
    if (!session!.paymentIntentIds.includes(intent.id)) refuse('paymentIntents', i, 'checkoutSessionId', `names ${session!.id}, whose paymentIntentIds do not list ${intent.id}.`)
  })
  if (merchant.tier !== 'business' && docs.invoices.length > 0) refuse('invoices', 0, 'id', 'is an Invoice, and Invoices are for business accounts only.')
  const numbers = new Set<string>()
  const tokens = new Set<string>()
  docs.invoices.forEach((invoice, i) => {
    if (invoice.invoiceId > MAX_IMPORTED_INVOICE_ID) {
      refuse('invoices', i, 'invoiceId', `is above ${MAX_IMPORTED_INVOICE_ID}, the highest invoice id an import may hold: ids are shared by every merchant, and the counter must keep room for theirs.`)
    }
    // Only a draft may be over the cap or free: the dashboard edits drafts, and send refuses them.
    const { total } = totalsOf(invoice)
    if (invoice.status !== 'draft' && (total > MAX_AMOUNT || total === 0)) {
      refuse('invoices', i, 'items', `total ${formatFjd(total)}; a sent Invoice is FJ$0.01 to under FJ$5,000.00.`)
    }
    if (invoice.number !== null && numbers.has(invoice.number)) refuse('invoices', i, 'number', 'is used twice: invoice numbers are never reused.')
    if (invoice.number !== null) numbers.add(invoice.number)
    const holder = scope.invoiceWithPageToken(invoice.pageToken)
    if (tokens.has(invoice.pageToken) || (holder && (holder.merchantId !== merchant.id || holder.mode !== mode))) {
      refuse('invoices', i, 'pageToken', 'is the hosted page of another Invoice.')
    }
    tokens.add(invoice.pageToken)
    invoice.checkoutSessionIds.forEach((sessionId, k) => {
      if (sessions.get(sessionId)?.invoiceId !== invoice.id) refuse('invoices', i, `checkoutSessionIds[${k}]`, notHere)
    })
  })
  docs.payouts.forEach((payout, i) => {
    if (payout.rail !== railFor(merchant.tier)) refuse('payouts', i, 'rail', `must be ${railFor(merchant.tier)}: the rail follows the tier.`)
    if (mode === 'test' && payout.status !== 'paid') refuse('payouts', i, 'status', 'must be paid: test Payouts are paid in their run.')
  })
  docs.webhookEndpoints.forEach((endpoint, i) => {
    if (!urlAllowed(endpoint.url)) refuse('webhookEndpoints', i, 'url', `must be HTTPS${mode === 'test' ? ' or loopback http' : ''}.`)
    if (hasCredentials(endpoint.url)) refuse('webhookEndpoints', i, 'url', 'must not hold a user name or password.')
  })
  docs.deliveries.forEach((delivery, i) => {
    if (!events.has(delivery.eventId)) refuse('deliveries', i, 'eventId', notHere)
    // A delivery may outlive its endpoint (deleted since), but may never name someone else's.
    const endpoint = scope.webhookEndpoint(delivery.endpointId)
    const own = endpoints.get(delivery.endpointId)
    if (!own && endpoint && (endpoint.merchantId !== merchant.id || endpoint.mode !== mode)) {
      refuse('deliveries', i, 'endpointId', notHere)
    }
    // A delivery is made with its endpoint's URL (enqueueDeliveries), and no route changes an endpoint's URL: one
    // whose endpoint was deleted still has the URL that endpoint had, which the endpoint's rules let in.
    if (own && delivery.url !== own.url) refuse('deliveries', i, 'url', `must be its endpoint's url (${own.url}): an endpoint's URL never changes.`)
    if (!own && !urlAllowed(delivery.url)) refuse('deliveries', i, 'url', `must be HTTPS${mode === 'test' ? ' or loopback http' : ''}, as its endpoint's was.`)
    if (!own && hasCredentials(delivery.url)) refuse('deliveries', i, 'url', 'must not hold a user name or password, as its endpoint\'s could not.')
  })
  docs.emails.forEach((email, i) => {
    if (!sessions.has(email.relatedId) && !invoices.has(email.relatedId)) refuse('emails', i, 'relatedId', notHere)
  })
}

const PAYMENT_WORDS = { none: 'no payment', processing: 'a processing payment', succeeded: 'a succeeded payment', failed: 'a failed payment' } as const

/**
 * The file's sessions, payments, Invoices and Payouts as the API's own state
 * machine leaves them (server/domain/checkout-session.ts), with the balance
 * they make. The balance an import sets is what the file's succeeded
 * payments earned, so a payment the API could not have made would be money
 * from nothing: an unpaid or cancelled session marked succeeded, a payment
 * for more than its session, a session that never expires. References are
 * already checked (checkReferences), so every id here names a document of
 * the file.
 */
function checkPayments(docs: ModeObjects, refuse: Refuse): number {
  const sessions = byId(docs.checkoutSessions)
  const intents = byId(docs.paymentIntents)
  const invoices = byId(docs.invoices)
  docs.checkoutSessions.forEach((session, i) => {
    const lifetime = session.expiresAt - session.createdAt
    if (lifetime < MIN_EXPIRY_MS || lifetime > MAX_EXPIRY_MS) {
      refuse('checkoutSessions', i, 'expiresAt', `must be 30 minutes to 24 hours after createdAt (${session.createdAt}), as the API sets it.`)
    }
    if (session.status === 'pending' && session.endedAt !== null) refuse('checkoutSessions', i, 'endedAt', 'must be null: a pending session has not ended.')
    if (session.status !== 'pending' && session.endedAt === null) refuse('checkoutSessions', i, 'endedAt', `is required: a ${session.status} session has the time it ended.`)
    if (session.paymentIntentIds.length > 1) refuse('checkoutSessions', i, 'paymentIntentIds[1]', 'is a second payment: a session has at most one, as a failed session is final.')
    const intent = session.paymentIntentIds.length === 0 ? undefined : intents.get(session.paymentIntentIds[0]!)!
    const allowed = PAYMENT_OF_SESSION[session.status]
    if (!allowed.includes(intent?.status ?? 'none')) {
      const has = intent ? `its payment ${intent.id} is ${intent.status}` : 'it has none'
      refuse('checkoutSessions', i, 'status', `is ${session.status}, which needs ${allowed.map((status) => PAYMENT_WORDS[status]).join(' or ')}; ${has}.`)
    }
    if (session.quote !== null) {
      const converted = convertToFjd(session.quote.amount, session.quote.rate)
      if (session.amount !== converted) refuse('checkoutSessions', i, 'amount', `must be its quote converted at the locked rate, ${formatFjd(converted)}.`)
    }
    if (session.invoiceId !== null) {
      const { total } = totalsOf(invoices.get(session.invoiceId)!)
      if (session.amount !== total) refuse('checkoutSessions', i, 'amount', `must be its Invoice's total, ${formatFjd(total)}.`)
    }
  })
  docs.paymentIntents.forEach((intent, i) => {
    const { amount } = sessions.get(intent.checkoutSessionId)!
    if (intent.amount !== amount) refuse('paymentIntents', i, 'amount', `must be its session's amount, ${formatFjd(amount)}: a payment is for what its session asks.`)
    // paySession lets nothing decline or hold a live payment: it succeeds in the call that starts it.
    if (intent.mode === 'live' && intent.status !== 'succeeded') refuse('paymentIntents', i, 'status', `is ${intent.status}, but a live payment succeeds in the call that starts it.`)
    // paySession sets the reason exactly when the payment fails.
    stampOfStatus(refuse, 'paymentIntents', i, intent, 'failed', 'failureReason')
  })
  docs.invoices.forEach((invoice, i) => {
    const paidBy = invoice.checkoutSessionIds.filter((id) => sessions.get(id)!.status === 'succeeded')
    if (paidBy.length > 1) {
      refuse('invoices', i, `checkoutSessionIds[${invoice.checkoutSessionIds.indexOf(paidBy[1]!)}]`, 'is a second succeeded session: an Invoice is paid once.')
    }
    if (invoice.status === 'paid' && paidBy.length === 0) refuse('invoices', i, 'status', 'is paid, but none of its sessions succeeded.')
    if (invoice.status !== 'paid' && paidBy.length > 0) refuse('invoices', i, 'status', `is ${invoice.status}, but its session ${paidBy[0]} succeeded, which pays it.`)
  })
  const earned = docs.checkoutSessions.filter((s) => s.status === 'succeeded').reduce((sum, s) => sum + s.amount, 0)
  // A failed Payout's amount went back into the balance, but it was once the balance: never more than was earned.
  docs.payouts.forEach((payout, i) => {
    if (payout.amount > earned) refuse('payouts', i, 'amount', `is more than the succeeded payments earned (${formatFjd(earned)}).`)
  })
  const swept = docs.payouts.filter((p) => p.status !== 'failed').reduce((sum, p) => sum + p.amount, 0)
  if (swept > earned) throw invalidRequest('The Payouts sweep more than the succeeded payments earned.', 'payouts')
  checkPayoutsFollowPayments(docs, refuse)
  return earned - swept
}

/**
 * A Payout sweeps the balance of its run (sweep in payouts.ts): what the
 * payments that succeeded by its createdAt earned, less what the Payouts
 * before it took. A failed one's money came back, so it took nothing for
 * good. Sorted by time, not compared pair by pair: a busy merchant's file
 * holds thousands of sessions and Payouts.
 */
function checkPayoutsFollowPayments(docs: ModeObjects, refuse: Refuse): void {
  const earnings = docs.checkoutSessions.filter((s) => s.status === 'succeeded').sort((a, b) => a.endedAt! - b.endedAt!)
  // A stable sort: Payouts of one millisecond keep the order they were made in, which the file keeps.
  const order = docs.payouts.map((_payout, i) => i).sort((a, b) => docs.payouts[a]!.createdAt - docs.payouts[b]!.createdAt)
  let counted = 0
  let earnedBy = 0
  let sweptBefore = 0
  for (const i of order) {
    const payout = docs.payouts[i]!
    while (counted < earnings.length && earnings[counted]!.endedAt! <= payout.createdAt) earnedBy += earnings[counted++]!.amount
    if (payout.amount > earnedBy - sweptBefore) {
      refuse(
        'payouts',
        i,
        'createdAt',
        `is before the payments it pays out: by then payments had earned ${formatFjd(earnedBy)}, and earlier Payouts took ${formatFjd(sweptBefore)} of it, ` +
          `less than its ${formatFjd(payout.amount)}.`,
      )
    }
    if (payout.status !== 'failed') sweptBefore += payout.amount
  }
}

/**
 * Each object's times as the API stamps them: a status's time set exactly
 * when the object reached that status, and each time after the one before
 * it, as the merchant's clock never goes back. Sessions and payments
 * (createSession, paySession, endSession): a session ends after it opens, an
 * Invoice's only once the Invoice is sent (checkoutForInvoice); a payment
 * starts after its session opens and before it expires, and ends before
 * its session does. Invoices (transitionInvoice): sent after created, paid
 * or voided after sent. Payouts (sweep and the disbursement jobs in
 * payouts.ts): sent after created, paid after sent; a failed one has its
 * reason. Webhook endpoints (rotateEndpointSecret): the current secret
 * signs until the next rotation, and the one it replaced for 72 hours from
 * then. Deliveries (server/events/delivery.ts): a next try only while
 * pending, no later than the retry schedule sets it. The payments and
 * references are already checked (checkPayments), so each status has the
 * payment it needs.
 */
function checkStamps(docs: ModeObjects, refuse: Refuse): void {
  const sessions = byId(docs.checkoutSessions)
  const invoices = byId(docs.invoices)
  docs.checkoutSessions.forEach((session, i) => {
    if (session.endedAt !== null && session.endedAt < session.createdAt) refuse('checkoutSessions', i, 'endedAt', `is before createdAt (${session.createdAt}): a session ends after it opens.`)
    const sentAt = session.invoiceId === null ? null : invoices.get(session.invoiceId)!.sentAt
    if (sentAt !== null && session.createdAt < sentAt) {
      refuse('checkoutSessions', i, 'createdAt', `is before its Invoice was sent (${sentAt}): a session opens only to pay a sent Invoice.`)
    }
  })
  docs.paymentIntents.forEach((intent, i) => {
    const session = sessions.get(intent.checkoutSessionId)!
    if (intent.createdAt < session.createdAt) refuse('paymentIntents', i, 'createdAt', `is before its session was created (${session.createdAt}).`)
    if (intent.createdAt >= session.expiresAt) refuse('paymentIntents', i, 'createdAt', `is not before its session's expiresAt (${session.expiresAt}): no payment starts once a session has expired.`)
    if (intent.updatedAt < intent.createdAt) refuse('paymentIntents', i, 'updatedAt', `is before createdAt (${intent.createdAt}).`)
    if (session.endedAt !== null && intent.updatedAt > session.endedAt) {
      refuse('paymentIntents', i, 'updatedAt', `is after its session ended (${session.endedAt}): the payment that ends a session ends first.`)
    }
  })
  docs.invoices.forEach((invoice, i) => {
    if (invoice.status === 'draft' && invoice.sentAt !== null) refuse('invoices', i, 'sentAt', 'must be null: a draft has not been sent.')
    if (invoice.sentAt !== null && invoice.sentAt < invoice.createdAt) refuse('invoices', i, 'sentAt', `is before createdAt (${invoice.createdAt}).`)
    stampOfStatus(refuse, 'invoices', i, invoice, 'paid', 'paidAt')
    stampOfStatus(refuse, 'invoices', i, invoice, 'void', 'voidedAt')
    if (invoice.paidAt !== null && invoice.paidAt < invoice.sentAt!) refuse('invoices', i, 'paidAt', `is before sentAt (${invoice.sentAt}): an Invoice is paid after it is sent.`)
    if (invoice.voidedAt !== null && invoice.voidedAt < invoice.sentAt!) refuse('invoices', i, 'voidedAt', `is before sentAt (${invoice.sentAt}): only a sent Invoice is voided.`)
  })
  docs.payouts.forEach((payout, i) => {
    stampOfStatus(refuse, 'payouts', i, payout, 'failed', 'failureReason')
    stampOfStatus(refuse, 'payouts', i, payout, 'paid', 'paidAt')
    if (payout.status !== 'pending' && payout.sentAt === null) refuse('payouts', i, 'sentAt', `is required: a ${payout.status} Payout was sent first.`)
    if (payout.sentAt !== null && payout.sentAt < payout.createdAt) refuse('payouts', i, 'sentAt', `is before createdAt (${payout.createdAt}).`)
    if (payout.paidAt !== null && payout.paidAt < payout.sentAt!) refuse('payouts', i, 'paidAt', `is before sentAt (${payout.sentAt}): a Payout is paid after it is sent.`)
  })
  docs.webhookEndpoints.forEach((endpoint, i) => {
    endpoint.secrets.forEach((secret, k) => {
      const field = `secrets[${k}].expiresAt`
      if (k === 0 && secret.expiresAt !== null) refuse('webhookEndpoints', i, field, 'must be null: the current secret signs until the next rotation.')
      if (k === 0) return
      // Secrets are newest first: the one before this one was made by the rotation that started this one's overlap.
      const rotatedAt = endpoint.secrets[k - 1]!.createdAt
      if (secret.expiresAt === null) refuse('webhookEndpoints', i, field, 'is required: a rotated secret verifies for 72 hours after its rotation.')
      if (secret.expiresAt! > rotatedAt + SECRET_OVERLAP_MS) {
        refuse('webhookEndpoints', i, field, `is more than 72 hours after the rotation that replaced it (secrets[${k - 1}].createdAt, ${rotatedAt}).`)
      }
    })
  })
  docs.deliveries.forEach((delivery, i) => {
    if (delivery.nextAttemptAt === null) return
    if (delivery.status !== 'pending') refuse('deliveries', i, 'nextAttemptAt', `must be null on a ${delivery.status} delivery: only a pending one waits for a try.`)
    // The latest the schedule sets: the first try when the delivery is made, held back at most by a fault plan;
    // each retry a step of RETRY_DELAYS_MS after the try before it, and none once the steps are used up. A try due
    // sooner is only tried sooner; one due later is beyond any time the schedule leads to (a century, say).
    const last = delivery.attempts.at(-1)
    const latest = last === undefined ? delivery.createdAt + MAX_HOLD_MS : nextRetryAt(last.at, delivery.attempts.length)
    if (latest === null) refuse('deliveries', i, 'nextAttemptAt', `must be null: after ${delivery.attempts.length} failed attempts the retry schedule is used up.`)
    if (delivery.nextAttemptAt > latest!) {
      const after = last === undefined ? `its creation (${delivery.createdAt}) and the longest fault hold` : `its last attempt (${last.at})`
      refuse('deliveries', i, 'nextAttemptAt', `is after ${latest}, the latest the retry schedule sets after ${after}.`)
    }
  })
}

const STAMPED_OBJECTS = { paymentIntents: 'payment', invoices: 'Invoice', payouts: 'Payout' } as const

/**
 * A field the API sets exactly when the object reaches `status` (a failed
 * payment's reason, an Invoice's paidAt): refused when set in another
 * status, or missing in that one.
 */
function stampOfStatus<D extends { status: string }>(refuse: Refuse, name: keyof typeof STAMPED_OBJECTS, index: number, doc: D, status: D['status'], field: keyof D & string): void {
  if (doc.status === status && doc[field] === null) refuse(name, index, field, `is required on a ${status} ${STAMPED_OBJECTS[name]}.`)
  if (doc.status !== status && doc[field] !== null) refuse(name, index, field, `must be null on a ${doc.status} ${STAMPED_OBJECTS[name]}.`)
}

