import type { ChalkInstance } from 'chalk'
import type { BulaClient } from '../client/bula-client.js'
import type { CheckoutSession, Email, Invoice, InvoiceItem, PaymentIntent, Payout, Settings, Verification } from '../schemas/index.js'
import { formatFields, formatTable, formatTime, type Column } from './output.js'
import { describeDestination } from '../payout-destination.js'
import { formatFjd, formatMoney } from '../money.js'
import { formatDay } from '../time.js'

/** `key: value` renderings of resources that several commands print. */
export type Fields = Array<readonly [string, string]>

export const settingsFields = (settings: Settings): Fields => [
  ['mode', settings.mode],
  ['display name', settings.displayName],
  ['vat number', settings.vatNumber ?? '-'],
  ['invoice prefix', settings.invoicePrefix],
  ['next invoice number', String(settings.invoiceNextNumber)],
  ['receipts', settings.receiptsEnabled ? 'on' : 'off'],
  ['payout schedule', settings.payoutSchedule],
  ['payout destination', describeDestination(settings.payoutDestination)],
  ['live providers', settings.liveProviders ? 'on' : 'off'],
]

export function verificationFields(verification: Verification): Fields {
  const fields: Fields = [
    ['status', verification.status],
    ['tin', verification.tin ?? '-'],
    ['documents', Object.keys(verification.documents).join(', ') || '-'],
    ['submitted', formatTime(verification.submittedAt)],
    ['reviewed', formatTime(verification.reviewedAt)],
  ]
  if (verification.rejectionReason !== null) fields.push(['rejection reason', verification.rejectionReason])
  return fields
}

export function checkoutSessionFields(session: CheckoutSession): Fields {
  const { quote } = session
  const fields: Fields = [
    ['id', session.id],
    ['status', session.status],
    ['mode', session.mode],
    ['amount', formatFjd(session.amount)],
  ]
  if (quote) {
    fields.push(['quote', `${formatMoney(quote.amount, quote.currency)} at ${quote.rate} FJD/${quote.currency}, ${formatTime(quote.asOf)}`])
  }
  if (session.invoiceNumber !== undefined) fields.push(['invoice', session.invoiceNumber])
  const metadata = Object.entries(session.metadata).map(([key, value]) => `${key}=${value}`)
  fields.push(
    ['hosted url', session.hostedUrl],
    ['metadata', metadata.join(', ') || '-'],
    ['created', formatTime(session.createdAt)],
    ['expires', formatTime(session.expiresAt)],
  )
  return fields
}

export function paymentIntentFields(intent: PaymentIntent): Fields {
  const fields: Fields = [
    ['payment intent', intent.id],
    ['provider', intent.provider],
    ['payment status', intent.status],
  ]
  if (intent.failureReason !== null) fields.push(['failure reason', intent.failureReason])
  return fields
}

const invoiceFields = (invoice: Invoice, settingsVatNumber: string | null): Fields => [
  ['id', String(invoice.id)],
  ['number', invoice.number ?? '-'],
  ['status', invoice.overdue ? `${invoice.status} (overdue)` : invoice.status],
  ['mode', invoice.mode],
  ['customer', invoice.customerName],
  ['email', invoice.customerEmail ?? '-'],
  // The API's vatNumber is the invoice's own; without one, its PDF, hosted page and e-mail show the number in settings.
  ['vat number', invoice.vatNumber ?? (settingsVatNumber === null ? '-' : `${settingsVatNumber} (from settings)`)],
  ['due date', formatDay(invoice.dueDate)],
  ['url', invoice.url],
  ['created', formatTime(invoice.createdAt)],
  ['sent', formatTime(invoice.sentAt)],
  ['paid', formatTime(invoice.paidAt)],
  ['voided', formatTime(invoice.voidedAt)],
]

const invoiceItemColumns: ReadonlyArray<Column<InvoiceItem>> = [
  { header: 'DESCRIPTION', value: (item) => item.description },
  { header: 'QTY', value: (item) => String(item.quantity) },
  { header: 'UNIT PRICE', value: (item) => formatFjd(item.unitPrice) },
  { header: 'AMOUNT', value: (item) => formatFjd(item.quantity * item.unitPrice) },
]

// No label and 0 % is how the API shows an Invoice without a tax line.
const taxLineOf = (invoice: Invoice): string =>
  invoice.taxLabel === null && invoice.taxPercent === 0 ? '' : ` (${invoice.taxLabel ?? 'Tax'} ${invoice.taxPercent}%)`

/**
 * An Invoice as its fields, the table of its items, then the money. Its VAT
 * number is the one its documents show: its own, else `settingsVatNumber`.
 */
export function formatInvoice(invoice: Invoice, settingsVatNumber: string | null, colors: ChalkInstance): string {
  const totals: Fields = [
    ['subtotal', formatFjd(invoice.subtotal)],
    ['tax', formatFjd(invoice.tax) + taxLineOf(invoice)],
    ['total', formatFjd(invoice.total)],
  ]
  return [
    formatFields(invoiceFields(invoice, settingsVatNumber), colors),
    '',
    formatTable(invoice.items, invoiceItemColumns, colors),
    '',
    formatFields(totals, colors),
  ].join('\n')
}

/**
 * formatInvoice with the settings' VAT number, for human output only (--json
 * prints the API's Invoice, which has no need of it). Settings are read
 * before the command sends its own request, so a failed read cannot hide a
 * change that the command made.
 */
export async function invoiceFormatter(client: BulaClient, colors: ChalkInstance): Promise<(invoice: Invoice) => string> {
  const { vatNumber } = await client.getSettings()
  return (invoice) => formatInvoice(invoice, vatNumber, colors)
}

export function payoutFields(payout: Payout): Fields {
  const fields: Fields = [
    ['id', payout.id],
    ['status', payout.status],
    ['mode', payout.mode],
    ['amount', formatFjd(payout.amount)],
    ['rail', payout.rail],
    ['created', formatTime(payout.createdAt)],
    ['sent', formatTime(payout.sentAt)],
    ['paid', formatTime(payout.paidAt)],
  ]
  if (payout.failureReason !== null) fields.push(['failure reason', payout.failureReason])
  return fields
}

/** An e-mail in the simulator's outbox, without its bodies. */
export const emailFields = (email: Email): Fields => [
  ['email', email.id],
  ['to', email.to],
  ['subject', email.subject],
  ['attachments', email.attachments.map((file) => `${file.filename} (${file.bytes.toLocaleString('en-US')} bytes)`).join(', ') || '-'],
  ['created', formatTime(email.createdAt)],
]
