import type { CheckoutSession, PaymentIntent, Settings, Verification } from '../schemas/index.js'
import { formatFjd, formatMoney, formatTime } from './output.js'
import { describeDestination } from './payout-destination.js'

/** `key: value` renderings of resources that several commands print. */
export type Fields = Array<readonly [string, string]>

export const settingsFields = (settings: Settings): Fields => [
  ['mode', settings.mode],
  ['display name', settings.displayName],
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
