import { apiError } from '../domain/error-catalog.js'
import { invalidRequest, invalidState, notFound } from '../../src/errors.js'
import {
  MAX_INVOICE_ID,
  MAX_INVOICE_NUMBER,
  type CreateInvoiceRequest,
  type Invoice,
  type InvoiceList,
  type ListInvoicesQuery,
  type PayResponse,
  type PaySessionRequest,
  type UpdateInvoiceRequest,
} from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { MAX_EXPIRY_MS, isExpired, paymentStarted, type CheckoutSessionRecord } from '../domain/checkout-session.js'
import {
  INVOICE_STATE_WORDS,
  DEFAULT_TAX_LABEL,
  INVOICE_ID_COUNTER,
  cannotPayMessage,
  checkCap,
  checkPayable,
  formatInvoiceNumber,
  invoiceNumberKey,
  invoicePageUrl,
  presentInvoice,
  taxLineLabel,
  totalsOf,
  transitionInvoice,
  type InvoiceRecord,
} from '../domain/invoice.js'
import type { MerchantRecord } from '../domain/merchant.js'
import { newSecret } from '../ids.js'
import { renderInvoicePdf } from '../pdf/invoice-pdf.js'
import { merchantModeGroup } from '../store/collections.js'
import { endSession, openSession, paySession, refuseLiveOutcome, refuseLivePaymentStart } from './checkout-sessions.js'
import { findStoredResult, replayRecord, runIdempotent, type IdempotencyScope, type IdempotentResult } from './idempotency.js'

/** Invoices are for Business accounts, on every route, checked before anything else (spec). */
export function requireBusiness(caller: Caller): void {
  if (caller.merchant.tier !== 'business') throw apiError('business_only', 'Invoices need a Business account.')
}

export const present = (ctx: ServiceContext, invoice: InvoiceRecord): Invoice =>
  presentInvoice(invoice, ctx.urls.base, ctx.clock.now(invoice.merchantId))

/** The spec's own rule: a repeated key returns the original result, whatever the body. */
const anyRequest = (): boolean => true

const CREATE_ROUTE = 'POST /v1/invoices'
/** Keys of send and void are scoped to the Invoice, by its id as the service resolves it (`007` is 7). */
const changeRoute = (invoice: InvoiceRecord, change: 'send' | 'void'): string => `POST /v1/invoices/${invoice.invoiceId}/${change}`

/** The stored result of a key, for a request refused before its change could run; any body is the same request. */
const replayStored = (ctx: ServiceContext, scope: IdempotencyScope): IdempotentResult<Invoice> | undefined => {
  const record = findStoredResult(ctx, scope)
  return record && replayRecord(record, null, anyRequest)
}

/** A create whose body the schema refused, answered as a repeat of its key: the original draft, or `undefined` when the key has none. */
export const replayCreateInvoice = (ctx: ServiceContext, caller: Caller, key: string): IdempotentResult<Invoice> | undefined =>
  replayStored(ctx, { caller, route: CREATE_ROUTE, key })

/**
 * A send or void refused for its body, answered as a repeat of its key.
 * `undefined` when the path names no Invoice of the caller, or the key has
 * no stored result: the body's refusal stands, so a path naming another
 * merchant's Invoice is answered as before and learns nothing of it.
 */
export function replayInvoiceChange(ctx: ServiceContext, caller: Caller, id: string, change: 'send' | 'void', key: string): IdempotentResult<Invoice> | undefined {
  const invoice = findOwnInvoice(ctx, caller, id)
  return invoice && replayStored(ctx, { caller, route: changeRoute(invoice, change), key })
}

export function createInvoice(ctx: ServiceContext, caller: Caller, request: CreateInvoiceRequest, key: string): IdempotentResult<Invoice> {
  return runIdempotent(ctx, { caller, route: CREATE_ROUTE, key }, null, anyRequest, () => {
    const fields = {
      items: request.items,
      taxPercent: request.taxPercent ?? 0,
    }
    checkCap(fields)
    // Ids never repeat, also after a merchant's state is reset or replaced. The counter of a hand-edited data file
    // may be behind the Invoices (removed, or set back): a put under a taken id would replace another's Invoice.
    let invoiceId = (ctx.store.get('counters', INVOICE_ID_COUNTER)?.last ?? 0) + 1
    while (ctx.store.get('invoices', String(invoiceId))) invoiceId++
    ctx.store.put('counters', { id: INVOICE_ID_COUNTER, last: invoiceId })
    const invoice: InvoiceRecord = {
      id: String(invoiceId),
      invoiceId,
      merchantId: caller.merchant.id,
      mode: caller.mode,
      status: 'draft',
      number: null,
      customerName: request.customerName,
      customerEmail: request.customerEmail ?? null,
      ...fields,
      taxLabel: taxLineLabel(request.taxLabel ?? null, fields.taxPercent),
      vatNumber: request.vatNumber ?? null,
      dueDate: request.dueDate,
      pageToken: newSecret(''),
      createdAt: ctx.clock.now(caller.merchant.id),
      sentAt: null,
      paidAt: null,
      voidedAt: null,
      checkoutSessionIds: [],
    }
    ctx.store.put('invoices', invoice)
    return { status: 201, body: present(ctx, invoice) }
  })
}

/** An Invoice id in a path: an integer up to MAX_INVOICE_ID's digits, read as an integer path parameter is (`011` is 11). */
const INVOICE_ID_IN_PATH = new RegExp(`^[0-9]{1,${String(MAX_INVOICE_ID).length}}$`)

/** The caller's Invoice of a path's `id`, if there is one: another merchant's or mode's is not. */
function findOwnInvoice(ctx: ServiceContext, caller: Caller, id: string): InvoiceRecord | undefined {
  const invoice = INVOICE_ID_IN_PATH.test(id) ? ctx.store.get('invoices', String(Number(id))) : undefined
  return invoice && invoice.merchantId === caller.merchant.id && invoice.mode === caller.mode ? invoice : undefined
}

export function ownInvoice(ctx: ServiceContext, caller: Caller, id: string): InvoiceRecord {
  const invoice = findOwnInvoice(ctx, caller, id)
  if (!invoice) throw notFound('Invoice')
  return invoice
}

export const getInvoice = (ctx: ServiceContext, caller: Caller, id: string): Invoice => present(ctx, ownInvoice(ctx, caller, id))

/** The PDF of a sent Invoice (the API's download and the dashboard's preview); a draft has none yet. */
export async function invoicePdf(ctx: ServiceContext, caller: Caller, id: string): Promise<{ invoice: InvoiceRecord; pdf: Buffer }> {
  requireBusiness(caller)
  const invoice = ownInvoice(ctx, caller, id)
  if (invoice.status === 'draft') throw invalidState(`Invoice ${invoice.invoiceId} is still a draft; send it first.`)
  return { invoice, pdf: await renderInvoicePdf(ctx, invoice) }
}

/** Newest first; `starting_after` returns older Invoices. */
export function listInvoices(ctx: ServiceContext, caller: Caller, query: ListInvoicesQuery): InvoiceList {
  const ids = ctx.store.group('invoices', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
  let end = ids.length
  if (query.starting_after !== undefined) {
    end = ids.lastIndexOf(String(query.starting_after))
    if (end < 0) throw invalidRequest('starting_after is not an Invoice of this merchant and mode.', 'starting_after')
  }
  const limit = query.limit ?? 10
  const start = Math.max(0, end - limit)
  const data = ids
    .slice(start, end)
    .reverse()
    .map((id) => present(ctx, ctx.store.get('invoices', id)!))
  return { data, hasMore: start > 0 }
}

/** Sessions opened for the invoice that a customer could still pay, or is paying. */
function openSessions(ctx: ServiceContext, invoice: InvoiceRecord): CheckoutSessionRecord[] {
  return invoice.checkoutSessionIds
    .map((id) => ctx.store.get('checkoutSessions', id))
    .filter((session): session is CheckoutSessionRecord => session?.status === 'pending')
}

/**
 * Assigns the next number of the mode from Settings. A retried key returns
 * the original result, so no second number is ever used.
 */
export function sendInvoice(ctx: ServiceContext, caller: Caller, id: string, key: string): IdempotentResult<Invoice> {
  const invoice = ownInvoice(ctx, caller, id)
  return runIdempotent(ctx, { caller, route: changeRoute(invoice, 'send'), key }, null, anyRequest, () => {
    const transitioned = transitionInvoice(invoice, 'sent', ctx.clock.now(caller.merchant.id))
    checkPayable(invoice)
    const merchant = ctx.store.get('merchants', caller.merchant.id)!
    const { invoicePrefix } = merchant.settings
    let n = merchant.settings.invoiceNextNumber[caller.mode]
    // A number is never issued twice, as the string the customer sees: after a prefix change the counter can
    // reach one issued under the old prefix (INV-2 with 42 and INV- with 20042 are both INV-20042), so it skips on.
    const taken = (number: string): boolean =>
      ctx.store.lookup('invoices', 'byNumber', invoiceNumberKey({ id: '', merchantId: caller.merchant.id, mode: caller.mode, number })) !== undefined
    while (taken(formatInvoiceNumber(invoicePrefix, n))) n++
    if (n >= MAX_INVOICE_NUMBER) {
      throw invalidState(`No invoice number is left in ${caller.mode} mode: the counter is at ${n.toLocaleString('en')}, and numbers are never reused.`)
    }
    const settings: MerchantRecord['settings'] = {
      ...merchant.settings,
      invoiceNextNumber: { ...merchant.settings.invoiceNextNumber, [caller.mode]: n + 1 },
      invoiceLastNumber: { ...merchant.settings.invoiceLastNumber, [caller.mode]: n },
    }
    ctx.store.put('merchants', { ...merchant, settings })
    const sent: InvoiceRecord = { ...transitioned, number: formatInvoiceNumber(invoicePrefix, n) }
    ctx.store.put('invoices', sent)
    return { status: 200, body: present(ctx, sent) }
  })
}

/** Refused while a customer is paying; sessions opened but not started are cancelled with it. */
export function voidInvoice(ctx: ServiceContext, caller: Caller, id: string, key: string): IdempotentResult<Invoice> {
  const invoice = ownInvoice(ctx, caller, id)
  return runIdempotent(ctx, { caller, route: changeRoute(invoice, 'void'), key }, null, anyRequest, () => {
    const voided = transitionInvoice(invoice, 'void', ctx.clock.now(caller.merchant.id))
    checkCap(invoice)
    const sessions = openSessions(ctx, invoice)
    if (sessions.some(paymentStarted)) {
      throw apiError('payment_in_progress', 'The customer is paying this Invoice; it cannot be voided now.')
    }
    for (const session of sessions) endSession(ctx, session, 'cancelled')
    ctx.store.put('invoices', voided)
    return { status: 200, body: present(ctx, voided) }
  })
}

/** Only drafts can be edited, from the dashboard (spec). The cap is left to send, so an over-cap draft can exist. */
export function updateDraft(ctx: ServiceContext, caller: Caller, id: string, patch: UpdateInvoiceRequest): Invoice {
  const invoice = ownInvoice(ctx, caller, id)
  if (invoice.status !== 'draft') throw apiError('invalid_state', `Invoice ${invoice.invoiceId} ${INVOICE_STATE_WORDS[invoice.status]}; only a draft can be edited.`)
  // As on create, a tax label needs a percent: a patch that adds the label brings the percent along.
  if (typeof patch.taxLabel === 'string' && patch.taxPercent === undefined && invoice.taxLabel === null) {
    throw invalidRequest('taxPercent is required with taxLabel.', 'taxPercent')
  }
  const taxPercent = patch.taxPercent ?? invoice.taxPercent
  // The "Tax" filled in for a tax line without a label goes with that line: at 0 % the draft is as if created without one.
  const keptLabel = invoice.taxLabel === DEFAULT_TAX_LABEL && taxPercent === 0 ? null : invoice.taxLabel
  const updated: InvoiceRecord = {
    ...invoice,
    customerName: patch.customerName ?? invoice.customerName,
    dueDate: patch.dueDate ?? invoice.dueDate,
    items: patch.items ?? invoice.items,
    customerEmail: patch.customerEmail === undefined ? invoice.customerEmail : patch.customerEmail,
    vatNumber: patch.vatNumber === undefined ? invoice.vatNumber : patch.vatNumber,
    taxLabel: taxLineLabel(patch.taxLabel === undefined ? keptLabel : patch.taxLabel, taxPercent),
    taxPercent,
  }
  ctx.store.put('invoices', updated)
  return present(ctx, updated)
}

/** The invoice behind a hosted page token, with its merchant; 404 before it is sent. */
export function invoiceForCustomer(ctx: ServiceContext, token: string): { invoice: InvoiceRecord; merchant: MerchantRecord } {
  const invoice = ctx.store.lookup('invoices', 'byPageToken', token)
  const merchant = invoice && ctx.store.get('merchants', invoice.merchantId)
  if (!invoice || !merchant || invoice.status === 'draft') throw notFound('Invoice')
  return { invoice, merchant }
}

/**
 * The Checkout Session that pays the invoice: the one already open (so two
 * clicks on Pay make one payment), or a new one carrying `invoiceNumber`
 * that leads back to the invoice page.
 */
export function checkoutForInvoice(ctx: ServiceContext, invoice: InvoiceRecord): CheckoutSessionRecord {
  if (invoice.status !== 'sent') throw apiError('invalid_state', cannotPayMessage(invoice))
  const merchant = ctx.store.get('merchants', invoice.merchantId)!
  const now = ctx.clock.now(merchant.id)
  const open = openSessions(ctx, invoice).find((session) => paymentStarted(session) || !isExpired(session, now))
  if (open) return open
  const page = invoicePageUrl(invoice, ctx.urls.base)
  const session = openSession(ctx, merchant, invoice.mode, {
    amount: totalsOf(invoice).total,
    quote: null,
    metadata: {},
    successUrl: page,
    cancelUrl: page,
    customerEmail: invoice.mode === 'live' ? invoice.customerEmail : null,
    invoiceNumber: invoice.number,
    invoiceId: invoice.id,
    createdAt: now,
    expiresAt: now + MAX_EXPIRY_MS,
  })
  ctx.store.put('invoices', { ...invoice, checkoutSessionIds: [...invoice.checkoutSessionIds, session.id] })
  return session
}

/** The customer stand-in for invoices (docs/simulator.md, "Payments"): pays through the invoice's Checkout Session. */
export function payInvoice(ctx: ServiceContext, caller: Caller, id: string, request: PaySessionRequest): PayResponse {
  const invoice = ownInvoice(ctx, caller, id)
  // What paySession would refuse once the session is open is judged first: a refused payment must not leave the
  // merchant a session they never asked for (a write is not undone when a later step throws).
  refuseLiveOutcome(invoice.mode, request)
  if (!openSessions(ctx, invoice).some(paymentStarted)) refuseLivePaymentStart(ctx.store.get('merchants', invoice.merchantId)!, invoice.mode)
  const session = checkoutForInvoice(ctx, invoice)
  return paySession(ctx, session.id, request)
}
