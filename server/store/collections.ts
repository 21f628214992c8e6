import type { JobRecord } from '../clock/job.js'
import type { ApiKeyRecord } from '../domain/api-key.js'
import type { CheckoutSessionRecord, PaymentIntentRecord } from '../domain/checkout-session.js'
import type { InvoiceRecord } from '../domain/invoice.js'
import type { MerchantRecord } from '../domain/merchant.js'
import type { PayoutRecord } from '../domain/payout.js'
import type { DeliveryRecord, WebhookEndpointRecord } from '../domain/webhook-endpoint.js'
import type { EventRecord } from '../events/payload.js'
import type { IdempotencyRecord } from '../services/idempotency.js'
import type { EmailRecord } from '../services/outbox.js'
import type { IndexSpec } from './types.js'

/** Every collection the simulator keeps, and the type of its documents. */
export type Collections = {
  merchants: MerchantRecord
  apiKeys: ApiKeyRecord
  idempotency: IdempotencyRecord
  jobs: JobRecord
  checkoutSessions: CheckoutSessionRecord
  paymentIntents: PaymentIntentRecord
  events: EventRecord
  emails: EmailRecord
  webhookEndpoints: WebhookEndpointRecord
  deliveries: DeliveryRecord
  invoices: InvoiceRecord
  payouts: PayoutRecord
  counters: CounterRecord
}

/** A sequence that never goes back, such as the integer Invoice ids. */
export interface CounterRecord {
  id: string
  last: number
}

export const COLLECTION_NAMES = [
  'merchants',
  'apiKeys',
  'idempotency',
  'jobs',
  'checkoutSessions',
  'paymentIntents',
  'events',
  'emails',
  'webhookEndpoints',
  'deliveries',
  'invoices',
  'payouts',
  'counters',
] as const satisfies readonly (keyof Collections)[]

/** The group key of objects listed per merchant and mode, in creation order. */
export const merchantModeGroup = (merchantId: string, mode: string): string => `${merchantId}:${mode}`
const byMerchantMode = (doc: { merchantId: string; mode: string }): string => merchantModeGroup(doc.merchantId, doc.mode)

export const INDEXES: IndexSpec<Collections> = {
  unique: {
    apiKeys: { byHash: (key) => key.hash },
    invoices: { byPageToken: (invoice) => invoice.pageToken },
  },
  groups: {
    apiKeys: { byMerchant: (key) => key.merchantId },
    checkoutSessions: { byMerchantMode },
    events: { byMerchantMode },
    emails: { byMerchantMode },
    webhookEndpoints: { byMerchantMode },
    deliveries: { byEvent: (delivery) => delivery.eventId },
    invoices: { byMerchantMode },
    payouts: { byMerchantMode },
  },
}
