import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { ApiError, invalidRequest } from '../../src/errors.js'
import { MAX_ADVANCE_MS } from '../../src/schemas/clock.js'
import { formatFjd } from '../../src/money.js'
import { MAX_AMOUNT, type Mode } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { MAX_EXPIRY_MS, MIN_EXPIRY_MS, PAYMENT_OF_SESSION } from '../domain/checkout-session.js'
import { INVOICE_ID_COUNTER, MAX_IMPORTED_INVOICE_ID, totalsOf } from '../domain/invoice.js'
import { requireLiveKey, type MerchantRecord } from '../domain/merchant.js'
import { convertToFjd } from '../domain/money.js'
import { railFor } from '../domain/payout.js'
import {
  idOf,
  merchantRecordSchema,
  merchantSettingsRecordSchema,
  nextPayoutFailureSchema,
  parseAt,
  parseRecord,
  quoteRatesRecordSchema,
  recordPath,
  webhookFaultsRecordSchema,
} from '../domain/records.js'
import { hasCredentials, isAllowedUrl } from '../domain/urls.js'
import { INDEXES, merchantModeGroup, type Collections } from '../store/collections.js'
import { scheduleSessionJobs } from './checkout-sessions.js'
import { DELIVER_JOB, JOB_TARGETS, jobTarget, scheduleTargetedJob } from '../clock/targeted-jobs.js'
import { schedulePayoutJobs, scheduleSettlement } from './payouts.js'
import { LIVE_MONEY_SETTINGS } from './settings.js'

/**
 * A merchant's state file holds its objects of ONE mode, the mode of the
 * key that exports, resets or imports it, as the API keeps modes apart
 * (docs/security.md, "State files"). These are its collections.
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
type StateCollection = (typeof STATE_COLLECTIONS)[number]
type StateDocs = { [C in StateCollection]: Collections[C][] }

/** What the simulator keeps to itself, with the reason an import that carries it is refused. */
const NOT_IN_A_STATE_FILE: Readonly<Record<string, string>> = {
  apiKeys: 'API keys are never in a state file: the merchant keeps the keys it has.',
  jobs: 'Scheduled jobs are not imported: expiry, delivery retries and payouts are planned again from the objects.',
  idempotency: 'Idempotency records are not imported: a state file is a picture of objects, not of retries in flight.',
  counters: 'Counters belong to the whole simulator, not to one merchant.',
}

const settingsShape = merchantSettingsRecordSchema.shape

/**
 * What a state file says of the merchant itself, in its mode. Identity,
 * tier, verification and keys are never in it, and the balance follows
 * from the file's payments and Payouts. Quote rates are test mode's; the
 * payout fault is live mode's.
 */
const merchantPartSchema = z.strictObject({
  id: idOf('ms'),
  clockOffsetMs: merchantRecordSchema.shape.clockOffsetMs,
  settings: z.strictObject({
    displayName: settingsShape.displayName,
    vatNumber: settingsShape.vatNumber,
    invoicePrefix: settingsShape.invoicePrefix,
    invoiceNextNumber: settingsShape.invoiceNextNumber.shape.test,
    invoiceLastNumber: settingsShape.invoiceLastNumber.shape.test,
    receiptsEnabled: settingsShape.receiptsEnabled,
    payoutSchedule: settingsShape.payoutSchedule,
    payoutDestination: settingsShape.payoutDestination,
    liveProviders: settingsShape.liveProviders,
  }),
  webhookFaults: webhookFaultsRecordSchema,
  quoteRates: quoteRatesRecordSchema.optional(),
  nextPayoutFailure: nextPayoutFailureSchema.optional(),
})
type MerchantPart = z.infer<typeof merchantPartSchema>

export interface MerchantStateFile {
  format: 'bula-state'
  version: 1
  merchantId: string
  mode: Mode
  collections: { merchants: [MerchantPart] } & StateDocs
}

const merchantOf = (ctx: ServiceContext, caller: Caller): MerchantRecord => ctx.store.get('merchants', caller.merchant.id)!

function merchantPart(merchant: MerchantRecord, mode: Mode): MerchantPart {
  const { settings } = merchant
  return {
    id: merchant.id,
    clockOffsetMs: merchant.clockOffsetMs,
    settings: {
      displayName: settings.displayName,
      vatNumber: settings.vatNumber ?? null,
      invoicePrefix: settings.invoicePrefix,
      invoiceNextNumber: settings.invoiceNextNumber[mode],
      invoiceLastNumber: settings.invoiceLastNumber[mode],
      receiptsEnabled: settings.receiptsEnabled,
      payoutSchedule: settings.payoutSchedule,
      payoutDestination: settings.payoutDestination,
      liveProviders: settings.liveProviders,
    },
    webhookFaults: merchant.webhookFaults[mode],
    ...(mode === 'test' ? { quoteRates: merchant.quoteRates } : { nextPayoutFailure: merchant.nextPayoutFailure }),
  }
}

/**
 * The ids of the merchant's documents of one mode in a collection, in
 * creation order. A collection listed per merchant and mode is read through
 * that group: an export, reset or import runs in one turn of the event loop,
 * and walking every merchant's documents there (parsing each Checkout
 * Session left unparsed) held the whole simulator 230–310 ms for a merchant
 * of five sessions beside another's 100,000 (docs/performance.md). Payment
 * intents and deliveries have no such group and are kept parsed in memory,
 * so a walk of them is cheap.
 */
function idsOfMerchantMode(ctx: ServiceContext, name: StateCollection, merchantId: string, mode: Mode): string[] {
  if (INDEXES.groups?.[name]?.byMerchantMode) return [...ctx.store.group(name, 'byMerchantMode', merchantModeGroup(merchantId, mode))]
  return [...ctx.store.values(name)].filter((doc) => doc.merchantId === merchantId && doc.mode === mode).map((doc) => doc.id)
}

/** `GET /_sim/state`: the merchant and its objects of the key's mode (`bula state export`). */
export function exportMerchantState(ctx: ServiceContext, caller: Caller): MerchantStateFile {
  const merchant = merchantOf(ctx, caller)
  const { mode } = caller
  const docs = Object.fromEntries(
    STATE_COLLECTIONS.map((name) => [name, idsOfMerchantMode(ctx, name, merchant.id, mode).map((id) => ctx.store.get(name, id)!)]),
  ) as StateDocs
  return { format: 'bula-state', version: 1, merchantId: merchant.id, mode, collections: { merchants: [merchantPart(merchant, mode)], ...docs } }
}

/** Deletes the merchant's objects of one mode, and the jobs that acted on them; its keys and the other mode stay. */
function clearMode(ctx: ServiceContext, merchantId: string, mode: Mode): void {
  for (const name of STATE_COLLECTIONS) {
    // By id: the delete reads what it needs of a document, once.
    for (const id of idsOfMerchantMode(ctx, name, merchantId, mode)) ctx.store.delete(name, id)
  }
  // By their group: reading every record would parse those start-up left unparsed.
  for (const id of [...ctx.store.group('idempotency', 'byMerchantMode', merchantModeGroup(merchantId, mode))]) ctx.store.delete('idempotency', id)
  for (const job of [...ctx.store.values('jobs')]) {
    if (job.merchantId === merchantId && job.kind in JOB_TARGETS && jobTarget(ctx, job) === undefined) ctx.store.delete('jobs', job.id)
  }
}

/**
 * `POST /_sim/state/reset`: the key's mode back to a merchant that just
 * signed up. Identity, keys, settings, verification, the clock (which never
 * goes back) and the other mode's objects stay.
 */
export function resetMerchantState(ctx: ServiceContext, caller: Caller): { merchantId: string; mode: Mode; reset: true } {
  const { id } = caller.merchant
  const { mode } = caller
  clearMode(ctx, id, mode)
  const merchant = ctx.store.get('merchants', id)!
  ctx.store.put('merchants', {
    ...merchant,
    balances: { ...merchant.balances, [mode]: 0 },
    webhookFaults: { ...merchant.webhookFaults, [mode]: null },
    nextPayoutFailure: mode === 'live' ? null : merchant.nextPayoutFailure,
  })
  scheduleSettlement(ctx, id)
  ctx.clock.reload()
  return { merchantId: id, mode, reset: true }
}

/** A checked state file, ready to apply. */
interface ImportPlan {
  part: MerchantPart
  docs: StateDocs
  /** The mode's balance: what the succeeded payments earned and no Payout swept. */
  balance: number
}

/** A refusal naming the path of the bad value, as a document's own schema errors do. */
const refuse = (name: string, index: number, field: string, why: string): never => {
  throw invalidRequest(`${recordPath(name, index, field)} ${why}`, recordPath(name, index, field))
}

const byId = <D extends { id: string }>(list: D[]) => new Map(list.map((doc) => [doc.id, doc]))

const objectOrNull = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null

/**
 * Each document of each collection against the store's schema, all of the
 * caller's merchant and mode, ids unique here and in the simulator.
 * `parsed` holds each list's documents as parseImportDocuments checked them,
 * up to the first that failed, whose refusal is thrown here, in this order.
 */
function checkDocuments(ctx: ServiceContext, caller: Caller, collections: Record<string, unknown>, parsed: ParsedDocuments): StateDocs {
  const { id: merchantId } = caller.merchant
  const { mode } = caller
  const docs = {} as Record<StateCollection, { id: string; merchantId: string; mode: Mode }[]>
  for (const name of STATE_COLLECTIONS) {
    const list = collections[name] ?? []
    if (!Array.isArray(list)) throw invalidRequest(`\`${name}\` must be a list of objects.`, name)
    const seen = new Set<string>()
    // Ids the merchant holds in this mode need no read: reading each stored session would parse it.
    const own = new Set(idsOfMerchantMode(ctx, name, merchantId, mode))
    docs[name] = list.map((_raw, index) => {
      const doc = parsed[name]![index]!
      if (doc instanceof ApiError) throw doc
      if (doc.merchantId !== merchantId) throw invalidRequest(`${recordPath(name, index)} belongs to another merchant.`, recordPath(name, index, 'merchantId'))
      if (doc.mode !== mode) {
        throw invalidRequest(`${recordPath(name, index)} is a ${doc.mode} object: only a ${doc.mode} key imports ${doc.mode} objects.`, recordPath(name, index, 'mode'))
      }
      const existing = own.has(doc.id) ? undefined : ctx.store.get(name, doc.id)
      if (seen.has(doc.id) || (existing && (existing.merchantId !== merchantId || existing.mode !== mode))) {
        throw invalidRequest(`${recordPath(name, index, 'id')} ${doc.id} already names another object.`, recordPath(name, index, 'id'))
      }
      seen.add(doc.id)
      return doc
    })
  }
  return docs as unknown as StateDocs
}

/** Every reference names an object of the same file (so of the caller's merchant and mode), and the file obeys the API's own rules. */
function checkReferences(ctx: ServiceContext, caller: Caller, docs: StateDocs): void {
  const { merchant, mode } = caller
  const sessions = byId(docs.checkoutSessions)
  const intents = byId(docs.paymentIntents)
  const invoices = byId(docs.invoices)
  const events = byId(docs.events)
  const endpoints = byId(docs.webhookEndpoints)
  const urlAllowed = (url: string | null) => url === null || isAllowedUrl(url, mode, ctx.allowedHosts)
  const notHere = 'names no object of this file.'

  docs.checkoutSessions.forEach((session, i) => {
    if (!urlAllowed(session.successUrl)) refuse('checkoutSessions', i, 'successUrl', `must be HTTPS${mode === 'test' ? ' or loopback http' : ''}.`)
    if (!urlAllowed(session.cancelUrl)) refuse('checkoutSessions', i, 'cancelUrl', `must be HTTPS${mode === 'test' ? ' or loopback http' : ''}.`)
    if (session.quote !== null && (mode === 'live' || merchant.tier !== 'business')) refuse('checkoutSessions', i, 'quote', 'is for business accounts in test mode only.')
    // Test mode validates a customer's address and drops it (createSession, checkoutForInvoice): only live mode keeps one, for the receipt.
    if (mode === 'test' && session.customerEmail !== null) refuse('checkoutSessions', i, 'customerEmail', 'must be null: test mode validates a customer\'s e-mail and drops it.')
    session.paymentIntentIds.forEach((intentId, k) => {
      if (intents.get(intentId)?.checkoutSessionId !== session.id) refuse('checkoutSessions', i, `paymentIntentIds[${k}]`, notHere)
    })
    if (session.invoiceId !== null) {
      const invoice = invoices.get(session.invoiceId)
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
    const holder = ctx.store.lookup('invoices', 'byPageToken', invoice.pageToken)
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
    const endpoint = ctx.store.get('webhookEndpoints', delivery.endpointId)
    if (!endpoints.has(delivery.endpointId) && endpoint && (endpoint.merchantId !== merchant.id || endpoint.mode !== mode)) {
      refuse('deliveries', i, 'endpointId', notHere)
    }
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
function checkPayments(docs: StateDocs): number {
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
    stampOfStatus('paymentIntents', i, intent, 'failed', 'failureReason')
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
  checkPayoutsFollowPayments(docs)
  return earned - swept
}

/**
 * A Payout sweeps the balance of its run (sweep in payouts.ts): what the
 * payments that succeeded by its createdAt earned, less what the Payouts
 * before it took. A failed one's money came back, so it took nothing for
 * good. Sorted by time, not compared pair by pair: a busy merchant's file
 * holds thousands of sessions and Payouts.
 */
function checkPayoutsFollowPayments(docs: StateDocs): void {
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
 * reason. The payments and references are already checked (checkPayments),
 * so each status has the payment it needs.
 */
function checkStamps(docs: StateDocs): void {
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
    stampOfStatus('invoices', i, invoice, 'paid', 'paidAt')
    stampOfStatus('invoices', i, invoice, 'void', 'voidedAt')
    if (invoice.paidAt !== null && invoice.paidAt < invoice.sentAt!) refuse('invoices', i, 'paidAt', `is before sentAt (${invoice.sentAt}): an Invoice is paid after it is sent.`)
    if (invoice.voidedAt !== null && invoice.voidedAt < invoice.sentAt!) refuse('invoices', i, 'voidedAt', `is before sentAt (${invoice.sentAt}): only a sent Invoice is voided.`)
  })
  docs.payouts.forEach((payout, i) => {
    stampOfStatus('payouts', i, payout, 'failed', 'failureReason')
    stampOfStatus('payouts', i, payout, 'paid', 'paidAt')
    if (payout.status !== 'pending' && payout.sentAt === null) refuse('payouts', i, 'sentAt', `is required: a ${payout.status} Payout was sent first.`)
    if (payout.sentAt !== null && payout.sentAt < payout.createdAt) refuse('payouts', i, 'sentAt', `is before createdAt (${payout.createdAt}).`)
    if (payout.paidAt !== null && payout.paidAt < payout.sentAt!) refuse('payouts', i, 'paidAt', `is before sentAt (${payout.sentAt}): a Payout is paid after it is sent.`)
  })
}

const STAMPED_OBJECTS = { paymentIntents: 'payment', invoices: 'Invoice', payouts: 'Payout' } as const

/**
 * A field the API sets exactly when the object reaches `status` (a failed
 * payment's reason, an Invoice's paidAt): refused when set in another
 * status, or missing in that one.
 */
function stampOfStatus<D extends { status: string }>(name: keyof typeof STAMPED_OBJECTS, index: number, doc: D, status: D['status'], field: keyof D & string): void {
  if (doc.status === status && doc[field] === null) refuse(name, index, field, `is required on a ${status} ${STAMPED_OBJECTS[name]}.`)
  if (doc.status !== status && doc[field] !== null) refuse(name, index, field, `must be null on a ${doc.status} ${STAMPED_OBJECTS[name]}.`)
}

/** The whole file checked before anything changes: a refusal is a 400 naming the path of the first bad value. */
function checkImport(ctx: ServiceContext, caller: Caller, body: unknown, parsed: ParsedDocuments): ImportPlan {
  const merchant = merchantOf(ctx, caller)
  const { mode } = caller
  const file = objectOrNull(body)
  if (!file || file.format !== 'bula-state' || file.version !== 1) {
    throw invalidRequest('The body must be a state file of version 1, as `GET /_sim/state` (`bula state export`) writes.', file ? 'format' : undefined)
  }
  if (file.merchantId !== undefined && file.merchantId !== merchant.id) {
    throw invalidRequest(
      `The file holds merchant ${String(file.merchantId)}; import only what this merchant (${merchant.id}) exported. ` +
        'To start another simulator with that merchant, write the whole simulator with `bula serve --export-on-exit FILE` ' +
        'and start the other one with `bula serve --import FILE`.',
      'merchantId',
    )
  }
  if (file.mode !== undefined && file.mode !== mode) {
    throw invalidRequest(`The file holds ${String(file.mode)} objects; only a ${String(file.mode)} key imports them.`, 'mode')
  }
  const collections = objectOrNull(file.collections)
  if (!collections) throw invalidRequest('`collections` must be an object of lists.', 'collections')
  for (const name of Object.keys(collections)) {
    // Own keys only: `constructor` or `toString` is an unknown collection, not a property of every object.
    if (Object.hasOwn(NOT_IN_A_STATE_FILE, name)) throw invalidRequest(NOT_IN_A_STATE_FILE[name]!, name)
    if (name !== 'merchants' && !(STATE_COLLECTIONS as readonly string[]).includes(name)) throw invalidRequest(`Unknown collection \`${name}\`.`, name)
  }
  const merchants = collections.merchants
  if (!Array.isArray(merchants) || merchants.length !== 1) throw invalidRequest('`merchants` must hold exactly this merchant.', 'merchants')
  const part = parseAt(merchantPartSchema, merchants[0], 'merchants[0]')
  if (part.id !== merchant.id) throw invalidRequest(`merchants[0] is ${part.id}; import only what this merchant (${merchant.id}) exported.`, 'merchants[0].id')
  if (mode === 'live' && part.quoteRates !== undefined) throw invalidRequest('Quote rates are test mode\'s: import them with a test key.', 'merchants[0].quoteRates')
  if (mode === 'test' && part.nextPayoutFailure !== undefined) {
    throw invalidRequest('The payout fault is live mode\'s: import it with a live key.', 'merchants[0].nextPayoutFailure')
  }
  if (part.clockOffsetMs > merchant.clockOffsetMs + MAX_ADVANCE_MS) {
    throw invalidRequest(`The clock may move at most one advance (${MAX_ADVANCE_MS} ms) ahead of where it is.`, 'merchants[0].clockOffsetMs')
  }
  for (const field of LIVE_MONEY_SETTINGS) {
    if (!isDeepStrictEqual(part.settings[field], merchant.settings[field])) {
      requireLiveKey(merchant, mode, `Changing ${field}`, `merchants[0].settings.${field}`)
    }
  }
  if (part.settings.liveProviders && !merchant.liveUnlocked) {
    throw invalidRequest('Live Providers can be switched on once verification is approved.', 'merchants[0].settings.liveProviders')
  }
  if (part.settings.invoiceNextNumber <= part.settings.invoiceLastNumber) {
    throw invalidRequest('invoiceNextNumber must be greater than invoiceLastNumber: numbers are never reused.', 'merchants[0].settings.invoiceNextNumber')
  }
  const docs = checkDocuments(ctx, caller, collections, parsed)
  checkReferences(ctx, caller, docs)
  const balance = checkPayments(docs)
  checkStamps(docs)
  return { part, docs, balance }
}

/** Documents checked against the store's schemas per turn of the event loop: about 10 ms of a large import's. */
const PARSE_SLICE_DOCUMENTS = 1_000

/** Each collection's documents as parseRecord made them, up to and with the refusal of the first that failed. */
type ParsedDocuments = Partial<Record<StateCollection, (Collections[StateCollection] | ApiError)[]>>

/**
 * Every document of the file against its collection's schema, a slice per
 * turn of the event loop, before anything is decided: a schema knows
 * nothing of the store, so this part of the check need not hold the other
 * merchants' requests. Checking 27,000 sessions at once was about 150 ms of
 * the simulator's only thread (docs/performance.md). A list that is not a
 * list is left to checkDocuments, which refuses it in its turn.
 */
async function parseImportDocuments(body: unknown): Promise<ParsedDocuments> {
  const collections = objectOrNull(objectOrNull(body)?.collections) ?? {}
  const parsed: ParsedDocuments = {}
  let checked = 0
  for (const name of STATE_COLLECTIONS) {
    const list = collections[name]
    if (!Array.isArray(list)) continue
    const docs: (Collections[StateCollection] | ApiError)[] = (parsed[name] = [])
    for (const [index, raw] of list.entries()) {
      try {
        docs.push(parseRecord(name, raw, index))
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        docs.push(error)
        break
      }
      if (++checked % PARSE_SLICE_DOCUMENTS === 0) await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return parsed
}

/**
 * `POST /_sim/state/import`: replaces the merchant's objects of the key's
 * mode with a state file's. The file is checked whole first (every document
 * against the store's schema, every reference within this merchant and
 * mode); then the change is made in one synchronous step, which the store
 * writes as one journal line: all of it or none, even through a crash. It
 * waits for an advance of the merchant's clock to finish (ClockService.exclusive).
 */
export async function importMerchantState(ctx: ServiceContext, caller: Caller, body: unknown): Promise<{ merchantId: string; mode: Mode; imported: number }> {
  const parsed = await parseImportDocuments(body)
  return ctx.clock.exclusive(caller.merchant.id, () => applyImport(ctx, caller, body, parsed))
}

function applyImport(ctx: ServiceContext, caller: Caller, body: unknown, parsed: ParsedDocuments): { merchantId: string; mode: Mode; imported: number } {
  const { part, docs, balance } = checkImport(ctx, caller, body, parsed)
  const { id } = caller.merchant
  const { mode } = caller
  clearMode(ctx, id, mode)
  let imported = 0
  for (const name of STATE_COLLECTIONS) {
    for (const doc of docs[name]) {
      ctx.store.put(name, doc)
      imported++
    }
  }
  const merchant = ctx.store.get('merchants', id)!
  const lastNumber = Math.max(merchant.settings.invoiceLastNumber[mode], part.settings.invoiceLastNumber)
  const { invoiceNextNumber, invoiceLastNumber: _last, ...shared } = part.settings
  ctx.store.put('merchants', {
    ...merchant,
    // The clock never goes back, also through an import.
    clockOffsetMs: Math.max(merchant.clockOffsetMs, part.clockOffsetMs),
    balances: { ...merchant.balances, [mode]: balance },
    settings: {
      ...merchant.settings,
      ...shared,
      // Numbers issued before the import stay used: the counter only moves on.
      invoiceNextNumber: { ...merchant.settings.invoiceNextNumber, [mode]: Math.max(invoiceNextNumber, lastNumber + 1) },
      invoiceLastNumber: { ...merchant.settings.invoiceLastNumber, [mode]: lastNumber },
    },
    webhookFaults: { ...merchant.webhookFaults, [mode]: part.webhookFaults },
    quoteRates: part.quoteRates ?? merchant.quoteRates,
    nextPayoutFailure: part.nextPayoutFailure === undefined ? merchant.nextPayoutFailure : part.nextPayoutFailure,
  })
  // Not Math.max(...ids): a file may hold more invoices than a call takes arguments.
  const highestInvoice = docs.invoices.reduce((highest, invoice) => Math.max(highest, invoice.invoiceId), 0)
  if (highestInvoice > (ctx.store.get('counters', INVOICE_ID_COUNTER)?.last ?? 0)) ctx.store.put('counters', { id: INVOICE_ID_COUNTER, last: highestInvoice })
  // What waits on the clock follows from the objects, so no imported job can name someone else's.
  for (const session of docs.checkoutSessions) scheduleSessionJobs(ctx, session)
  for (const payout of docs.payouts) schedulePayoutJobs(ctx, payout)
  for (const delivery of docs.deliveries) {
    if (delivery.status === 'pending' && delivery.nextAttemptAt !== null) scheduleTargetedJob(ctx, DELIVER_JOB, delivery, delivery.nextAttemptAt)
  }
  scheduleSettlement(ctx, id)
  ctx.clock.reload()
  return { merchantId: id, mode, imported }
}
