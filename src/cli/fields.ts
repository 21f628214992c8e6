import type { Settings, Verification } from '../schemas/index.js'
import { formatTime } from './output.js'
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
