import type {
  ApiKeyRecord,
  CheckoutSessionRecord,
  CounterRecord,
  DeliveryRecord,
  EmailRecord,
  EventRecord,
  IdempotencyRecord,
  InvoiceRecord,
  JobRecord,
  MerchantRecord,
  PaymentIntentRecord,
  PayoutRecord,
  WebhookEndpointRecord,
} from '../domain/records.js'
import { invoiceNumberKey } from '../domain/invoice.js'
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

export type { CounterRecord } from '../domain/records.js'

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

/**
 * Collections start-up may leave unparsed in the data file until a document
 * is read (docs/storage.md, "Lazy collections"): the two that grow with
 * every Checkout Session. An idempotency record is read only when a request
 * is retried; a session when it is fetched, listed or paid.
 */
export const LAZY_COLLECTIONS = ['idempotency', 'checkoutSessions'] as const satisfies readonly (keyof Collections)[]

export const INDEXES: IndexSpec<Collections> = {
  unique: {
    apiKeys: { byHash: (key) => key.hash },
    invoices: { byPageToken: (invoice) => invoice.pageToken, byNumber: invoiceNumberKey },
  },
  groups: {
    apiKeys: { byMerchant: (key) => key.merchantId },
    // In creation order, so the purge of records past their replay window reads each group from the front.
    idempotency: { byMerchantMode },
    checkoutSessions: { byMerchantMode },
    events: { byMerchantMode },
    emails: { byMerchantMode },
    webhookEndpoints: { byMerchantMode },
    deliveries: { byEvent: (delivery) => delivery.eventId, byEndpoint: (delivery) => delivery.endpointId },
    invoices: { byMerchantMode },
    payouts: { byMerchantMode },
  },
}
