import { invalidRequest, invalidState } from '../../src/errors.js'
import { MAX_AMOUNT, type Invoice, type InvoiceItem, type InvoiceStatus } from '../../src/schemas/index.js'
import { formatFjd } from '../../src/money.js'
import { fijiDate } from '../../src/time.js'
import type { InvoiceRecord, MerchantSettingsRecord } from './records.js'

export type { InvoiceRecord } from './records.js'

export const subtotalOf = (items: readonly InvoiceItem[]): number => items.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0)

/**
 * Tax is `taxPercent` of the subtotal, rounded to the nearest cent with
 * halves up, in integer arithmetic: the percent (2 decimal places) becomes
 * basis points of a hundredth, so 12.5 % of 1,001 cents is
 * (1,001 × 1,250 + 5,000) / 10,000 = 125 cents (125.125 rounded).
 */
export function taxOf(subtotal: number, taxPercent: number): number {
  const hundredthsOfPercent = BigInt(Math.round(taxPercent * 100))
  return Number((BigInt(subtotal) * hundredthsOfPercent + 5_000n) / 10_000n)
}

export function totalsOf(invoice: Pick<InvoiceRecord, 'items' | 'taxPercent'>): { subtotal: number; tax: number; total: number } {
  const subtotal = subtotalOf(invoice.items)
  const tax = taxOf(subtotal, invoice.taxPercent)
  return { subtotal, tax, total: subtotal + tax }
}

/** The counter of Invoice ids, one for the whole simulator: ids are never reused, across merchants (docs/simulator.md, "Invoices"). */
export const INVOICE_ID_COUNTER = 'invoiceId'

/**
 * The highest invoice id a state file may hold. An import moves the shared
 * counter past the ids it brings, so the cap sits far below the highest id
 * the API takes (MAX_INVOICE_ID): a file at the cap still leaves everyone
 * else about a trillion next Invoices the API serves (docs/security.md,
 * "State files").
 */
export const MAX_IMPORTED_INVOICE_ID = 999_999_999

/** The cap applies on create, send and void (spec). */
export function checkCap(invoice: Pick<InvoiceRecord, 'items' | 'taxPercent'>): void {
  const { subtotal, tax, total } = totalsOf(invoice)
  if (total > MAX_AMOUNT) {
    // When the items fit and the tax takes the total over, saying so names what to change.
    const taxOver = subtotal <= MAX_AMOUNT
      ? ` (items ${formatFjd(subtotal)} plus ${invoice.taxPercent}% tax ${formatFjd(tax)}): lower the items or the tax percent`
      : ''
    throw invalidRequest(`The invoice total is ${formatFjd(total)}${taxOver}; it must be under FJ$5,000.00.`, 'items')
  }
}

/**
 * What send needs besides the cap: something to pay. The customer pays
 * through a Checkout Session, and a session is for at least 1 cent, so a
 * draft of free items only stays a draft (docs/simulator.md, "Invoices").
 */
export function checkPayable(invoice: Pick<InvoiceRecord, 'items' | 'taxPercent'>): void {
  checkCap(invoice)
  if (totalsOf(invoice).total === 0) throw invalidRequest('The invoice total is FJ$0.00: a sent Invoice must have something to pay.', 'items')
}

/** What a tax line without a label of its own is called. */
export const DEFAULT_TAX_LABEL = 'Tax'

/**
 * The label an Invoice carries: the one given, or "Tax" for a tax line
 * sent without one, so that `taxLabel` is null only when there is no tax
 * line (spec), and the API, page, PDF and e-mail all say the same.
 */
export const taxLineLabel = (label: string | null, taxPercent: number): string | null => label ?? (taxPercent > 0 ? DEFAULT_TAX_LABEL : null)

/**
 * The VAT number is the seller's (docs/invoices-pdf-and-page.md): the
 * merchant's from Settings, unless this invoice gives its own.
 */
export const sellerVatNumber = (invoice: Pick<InvoiceRecord, 'vatNumber'>, settings: Pick<MerchantSettingsRecord, 'vatNumber'>): string | null =>
  invoice.vatNumber ?? settings.vatNumber ?? null

/**
 * "Tax Invoice" when a VAT-registered seller charges a tax line, the words
 * Fiji's VAT rules ask a tax invoice to carry; "Invoice" otherwise.
 */
export function documentTitle(invoice: Pick<InvoiceRecord, 'vatNumber' | 'taxLabel' | 'taxPercent'>, settings: Pick<MerchantSettingsRecord, 'vatNumber'>): string {
  const charged = taxLineLabel(invoice.taxLabel, invoice.taxPercent) !== null
  return charged && sellerVatNumber(invoice, settings) !== null ? 'Tax Invoice' : 'Invoice'
}

/** The key of an Invoice in the store's `byNumber` index: its number within its merchant and mode; a draft has none yet. */
export const invoiceNumberKey = (invoice: Pick<InvoiceRecord, 'id' | 'merchantId' | 'mode' | 'number'>): string =>
  invoice.number === null ? `draft ${invoice.id}` : `${invoice.merchantId} ${invoice.mode} ${invoice.number}`

/** `INV-0042`: the prefix (`INV-` plus optional digits) and the number padded to 4 digits. */
export const formatInvoiceNumber = (prefix: string, n: number): string => `${prefix}${String(n).padStart(4, '0')}`

/** Derived, not a status: a sent, unpaid invoice past its due date in Fiji (spec). */
export const isOverdue = (invoice: InvoiceRecord, now: number): boolean => invoice.status === 'sent' && fijiDate(now) > invoice.dueDate

const TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['sent'],
  sent: ['void', 'paid'],
  paid: [],
  void: [],
}

/** Where an Invoice's status leaves it, as a sentence reads it: "Invoice 3 has already been paid". */
export const INVOICE_STATE_WORDS: Record<InvoiceStatus, string> = {
  draft: 'is still a draft',
  sent: 'has already been sent',
  paid: 'has already been paid',
  void: 'has been voided',
}

/** The Invoice moved to `to` at `now` (its sentAt, voidedAt or paidAt), or invalid_state when its state machine forbids the move. */
export function transitionInvoice(invoice: InvoiceRecord, to: Exclude<InvoiceStatus, 'draft'>, now: number): InvoiceRecord {
  if (!TRANSITIONS[invoice.status].includes(to)) {
    const verb = { sent: 'sent', void: 'voided', paid: 'paid' }[to]
    throw invalidState(`Invoice ${invoice.invoiceId} ${INVOICE_STATE_WORDS[invoice.status]} and cannot be ${verb}.`)
  }
  const stamped = { sent: 'sentAt', void: 'voidedAt', paid: 'paidAt' } as const
  return { ...invoice, status: to, [stamped[to]]: now }
}

/** The hosted page the customer pays on (docs/simulator.md, "Payments": `{base}/i/{unguessable token}`). */
export const invoicePageUrl = (invoice: Pick<InvoiceRecord, 'pageToken'>, baseUrl: string): string => `${baseUrl}/i/${invoice.pageToken}`

/** `url` is the page of the invoice with `pageToken` at some simulator's address (invoicePageUrl with any base). */
export function isInvoicePageUrl(url: string, pageToken: string): boolean {
  const parsed = new URL(url)
  return /^https?:$/.test(parsed.protocol) && url === invoicePageUrl({ pageToken }, parsed.origin)
}

/** Why a customer cannot pay an Invoice that is not sent, in words. */
export function cannotPayMessage(invoice: Pick<InvoiceRecord, 'invoiceId' | 'number' | 'status'>): string {
  switch (invoice.status) {
    case 'draft':
      return `Invoice ${invoice.invoiceId} is still a draft; send it before it can be paid.`
    case 'paid':
      return `Invoice ${invoice.number} has already been paid.`
    default:
      return `Invoice ${invoice.number} ${INVOICE_STATE_WORDS[invoice.status]}; it can no longer be paid.`
  }
}

/** Paid in full through its Checkout Session (spec: sent → paid). */
export const markPaid = (invoice: InvoiceRecord, now: number): InvoiceRecord => transitionInvoice(invoice, 'paid', now)

export function presentInvoice(invoice: InvoiceRecord, baseUrl: string, now: number): Invoice {
  return {
    id: invoice.invoiceId,
    number: invoice.number,
    status: invoice.status,
    overdue: isOverdue(invoice, now),
    mode: invoice.mode,
    customerName: invoice.customerName,
    customerEmail: invoice.customerEmail,
    items: invoice.items,
    taxLabel: invoice.taxLabel,
    taxPercent: invoice.taxPercent,
    vatNumber: invoice.vatNumber,
    dueDate: invoice.dueDate,
    ...totalsOf(invoice),
    url: invoicePageUrl(invoice, baseUrl),
    pdfUrl: invoice.status === 'draft' ? null : `${baseUrl}/v1/invoices/${invoice.invoiceId}/pdf`,
    createdAt: invoice.createdAt,
    sentAt: invoice.sentAt,
    paidAt: invoice.paidAt,
    voidedAt: invoice.voidedAt,
  }
}
