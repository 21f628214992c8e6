/**
 * The service interface's rules, section by section, as `bula conformance`
 * checks them. Each section is a heading of the spec (`## Limits`,
 * `### Checkout Sessions` under `## Endpoints`); each rule is one numbered
 * item, one table row or one sentence of it that a client can observe. Cases
 * name the rules they check (src/conformance/cases), docs/conformance.md is
 * generated from this list and the cases, and a test fails when a heading of
 * the spec, or a rule here, has no case.
 *
 * The texts paraphrase the spec closely; where they differ the spec rules.
 */

export interface SpecSection {
  /** The heading's text, exactly as the spec writes it. */
  heading: string
  /** 1 for the document's title, 2 for `##`, 3 for `###`. */
  level: 1 | 2 | 3
  /** The `##` heading a `###` belongs to. */
  parent?: string
  rules: Record<string, string>
}

/** A rule no client can observe through the HTTP API; listed with the reason instead of a case. */
export interface UnobservableRule {
  rule: RuleId
  why: string
}

/** Something the spec leaves "not shown", and what the simulator chose (docs link). */
export interface NotShown {
  section: string
  topic: string
  choice: string
  doc: string
}

const SECTIONS = {
  intro: {
    heading: 'Checkout, Invoicing and Payout Service: Interface Specification',
    level: 1,
    rules: {
      'json-bodies': 'Bodies are JSON (`application/json`) except the invoice PDF download.',
      'timestamps-ms': 'Timestamps named `...At` and `asOf` are integers in Unix milliseconds.',
      'money-cents': 'Money is an integer in FJD cents.',
    },
  },
  service: {
    heading: 'What the service does',
    level: 2,
    rules: {
      'checkout-flow': '1. A Checkout Session returns a `hostedUrl`; fulfilment is decided by the `checkout_session.succeeded` webhook or by retrieving the session.',
      'invoices-flow': '2. Business accounts create Invoices as drafts, send, void and download their PDF; a sent Invoice has a hosted `url`; the API does not e-mail it.',
      'payouts-read-only': '3. Payouts are read-only through the API.',
      'merchant-me': '4. `GET /v1/merchants/me` returns the tier, the key\'s mode, the unswept balance and the payout schedule.',
      'modes-isolated': '5. The key decides the mode; every object is visible only to the same merchant and mode, anything else is 404.',
      'signup-test-key': '6. Signup needs only an e-mail and a name, and issues a test key at once.',
      'live-after-verification': '6. Live mode unlocks after Verification is submitted and approved.',
      'signed-webhooks': '7. Signed webhook notifications tell the merchant\'s server when payments change state.',
    },
  },
  resources: { heading: 'Resources and their fields', level: 2, rules: {} },
  'checkout-session': {
    heading: 'CheckoutSession',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`id` string, `status` enum, `mode` enum, `amount` integer, `currency` `FJD`, `hostedUrl` string, `metadata` map, `expiresAt` integer: all required.',
      mode: '`mode` is `test` for an `sk_test_` key, `live` for `sk_live_`.',
      'amount-converted': '`amount` is the FJD cents charged; with a quote, the converted FJD amount.',
      'metadata-empty': '`metadata` is an empty object when none was set.',
      'expires-at': '`expiresAt`: after it no payment can start; a still-pending session is then cancelled.',
      'invoice-number': '`invoiceNumber` is present only when the session pays one of the merchant\'s Invoices.',
      quote: '`quote` is present only when the session was created with a quote.',
    },
  },
  'checkout-session-quote': {
    heading: 'CheckoutSessionQuote (in responses)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`amount` integer in cents of `currency`, `currency` `USD`/`AUD`, `rate` a decimal string (FJD per unit), `asOf` the time the rate was taken.',
      'not-shown-to-customer': 'The quote is never shown to the customer, who sees and pays FJD only.',
    },
  },
  'create-checkout-session': {
    heading: 'CreateCheckoutSessionRequest (body)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      'amount-or-quote': '`amount` is sent with `currency`, or `quote` instead, never both.',
      'currency-with-amount': '`currency` (`FJD`) is required with `amount`.',
      'quote-locked': '`quote` is converted to FJD once at creation and the rate is locked.',
      'quote-test-business': '`quote` is test mode only and Business accounts only.',
      'success-url': '`successUrl`: a URI of at most 2048 chars, HTTPS only; after success the customer is sent there with `session_id` appended.',
      'cancel-url': '`cancelUrl`: a URI of at most 2048 chars, HTTPS only; on cancel or a failed payment the customer is sent there with `session_id` appended.',
      metadata: '`metadata`: at most 20 pairs, key at most 40 chars, value at most 500; returned on retrieve and in webhooks, never shown to the customer.',
      'customer-email': '`customerEmail`: e-mail format, at most 254 chars, never returned; in test mode validated and dropped.',
      receipts: 'In live mode a receipt is e-mailed to `customerEmail` on success, branded with the merchant\'s display name, unless receipts are off in Settings; in test mode nothing is sent.',
      'expires-at': '`expiresAt`: 30 minutes to 24 hours from now; default 24 hours.',
    },
  },
  invoice: {
    heading: 'Invoice',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: 'The fields and types of the table: integer `id`, `status` enum, `overdue` boolean, `items`, integer money fields, `dueDate` `YYYY-MM-DD`, `url`, timestamps.',
      number: '`number` is shaped `INV-<digits>`, null on a draft, assigned on send, never reused and kept after void.',
      overdue: '`overdue` is derived: true for a sent, unpaid Invoice past its due date (Pacific/Fiji); the customer can still pay.',
      'tax-line': '`taxLabel` is null with no tax line and `taxPercent` 0; `tax` is `taxPercent` of the subtotal.',
      totals: '`subtotal` is the sum of the line items, `total` is the amount due with tax.',
      url: '`url` is the hosted page the customer pays on; it works once sent.',
      'pdf-url': '`pdfUrl` is the PDF endpoint\'s address, fetched with the secret key; null on a draft.',
      'sent-paid-at': '`sentAt` is null on a draft; `paidAt` is null until paid.',
    },
  },
  'invoice-item': {
    heading: 'InvoiceItem',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      description: '`description`: required, at most 200 chars.',
      quantity: '`quantity`: required, 1 to 9999.',
      'unit-price': '`unitPrice`: required, FJD cents excluding tax.',
    },
  },
  'create-invoice': {
    heading: 'CreateInvoiceRequest (body)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      required: '`customerName`, `dueDate` and `items` are required.',
      'customer-name': '`customerName`: at most 100 chars.',
      'due-date': '`dueDate`: a `YYYY-MM-DD` date (Pacific/Fiji).',
      items: '`items`: 1 to 50 entries.',
      'tax-label': '`taxLabel` labels the single optional tax line and needs `taxPercent`.',
      'tax-percent': '`taxPercent`: percent of the subtotal, up to 100, 2 decimal places.',
      optional: '`customerEmail` and `vatNumber` are optional.',
    },
  },
  payout: {
    heading: 'Payout',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`id` string, `amount` integer, `rail`, `status` enum, `paidAt` and `failureReason` nullable, `createdAt` integer.',
      rail: '`rail` is `bank_transfer` for the Business tier and `wallet` for the Individual tier.',
      'failure-reason': '`failureReason` is set when `status` is `failed`.',
      'created-at': '`createdAt` is the time of the settlement run that created the Payout.',
    },
  },
  merchant: {
    heading: 'Merchant (response of `GET /v1/merchants/me`)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`tier`, `mode` (of the key used), `balance` (unswept, in the key\'s mode), `payoutSchedule`.',
      'payout-schedule': '`payoutSchedule` is one of `daily`, `weekly` (default), `fortnightly`, `monthly`, `manual`.',
    },
  },
  lists: {
    heading: 'Lists',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      'checkout-sessions': 'CheckoutSessionList: `data` newest first; `nextCursor` string, or null on the last page.',
      invoices: 'InvoiceList: `data` newest first; `hasMore` boolean.',
      payouts: 'PayoutList: `data` oldest id first; `hasMore` boolean.',
    },
  },
  error: {
    heading: 'Error',
    level: 3,
    parent: 'Resources and their fields',
    rules: { 'see-errors': 'See Errors: every error has the envelope given there.' },
  },
  'api-key': {
    heading: 'API key (create response)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`key` object: `id`, `mode`, `type`, `plaintext` (the full key, returned once only).',
      masked: 'Later listings show only the prefix and masked values (id, type, mode).',
    },
  },
  'webhook-endpoint': {
    heading: 'Webhook endpoint (register response)',
    level: 3,
    parent: 'Resources and their fields',
    rules: {
      fields: '`endpoint` object: `id`, `url`, `secret` (prefix `whsec_`, returned once only).',
      'list-no-secrets': 'Listings give ids and URLs, never secrets.',
      'active-after-verified': 'An endpoint is `active` only after it answers the `webhook.verified` event with a 2xx.',
    },
  },
  states: { heading: 'States and transitions', level: 2, rules: {} },
  'session-states': {
    heading: 'CheckoutSession',
    level: 3,
    parent: 'States and transitions',
    rules: {
      'created-pending': 'A session is created as `pending`; only `pending` ever changes.',
      'pay-succeeds': 'pending → succeeded when the customer\'s payment succeeds, with the `checkout_session.succeeded` webhook.',
      'pay-fails': 'pending → failed when the payment is declined, with the matching webhook.',
      cancel: 'pending → cancelled by `POST /v1/checkout-sessions/{id}/cancel`, with `checkout_session.cancelled`.',
      expiry: 'pending → cancelled when time passes `expiresAt`, with `checkout_session.cancelled`.',
      'cancel-not-pending': 'Cancel on a session that is not `pending` returns 409 `invalid_state`.',
      'cancel-paying': 'Cancel once the customer has started paying returns 409 `payment_in_progress`.',
    },
  },
  'invoice-states': {
    heading: 'Invoice',
    level: 3,
    parent: 'States and transitions',
    rules: {
      create: '(none) → draft: no number, `url` not yet working, `sentAt` null.',
      send: 'draft → sent: number assigned, `url` works, `sentAt` and `pdfUrl` set.',
      void: 'sent → void: number kept and never reused; it can no longer be paid.',
      pay: 'sent → paid when the customer pays in full on `url`: `paidAt` set.',
      'no-api-edit': 'A draft is editable only from the dashboard; a sent Invoice cannot be edited.',
      'void-refused': 'Void is refused for a draft, a paid Invoice, or while a customer is paying.',
    },
  },
  'payout-states': {
    heading: 'Payout',
    level: 3,
    parent: 'States and transitions',
    rules: {
      settlement: 'A settlement run per the payout schedule makes a `pending` Payout; `createdAt` is the run time.',
      paid: 'pending → paid when the money arrives: `paidAt` set.',
      failed: 'pending → failed when the transfer does not go through: `failureReason` set, the amount back in the balance and in the next Payout.',
      'test-paid': 'In Test mode Payouts are always `paid`.',
    },
  },
  endpoints: {
    heading: 'Endpoints',
    level: 2,
    rules: {
      'bearer-key': 'All endpoints need the bearer key.',
      'idempotency-key-header': '`Idempotency-Key` is a header of type string, at least 1 char.',
    },
  },
  'checkout-session-endpoints': {
    heading: 'Checkout Sessions',
    level: 3,
    parent: 'Endpoints',
    rules: {
      create: 'POST `/v1/checkout-sessions`: `Idempotency-Key` required; 201 CheckoutSession, also when replayed.',
      'create-errors': 'POST `/v1/checkout-sessions` errors: 400 `invalid_request` (amount or converted quote of FJD 5,000.00 or more), 401, 409s.',
      list: 'GET `/v1/checkout-sessions`: `limit` 1 to 100 (default 10), opaque `cursor` for older sessions, `status`, inclusive `from`/`to` on creation time; 200 newest first.',
      'list-errors': 'GET `/v1/checkout-sessions`: 400 `invalid_request` for a bad `cursor`, `status`, `from` or `to`.',
      get: 'GET `/v1/checkout-sessions/{id}`: 200 CheckoutSession; 404 for no such session.',
      cancel: 'POST `/v1/checkout-sessions/{id}/cancel`: 200 with status `cancelled` and `checkout_session.cancelled`; 404; 409 `invalid_state` on a repeat; 409 `payment_in_progress`.',
    },
  },
  'invoice-endpoints': {
    heading: 'Invoices (Business accounts only; others get 403 `business_only` on every route)',
    level: 3,
    parent: 'Endpoints',
    rules: {
      'business-only': 'Every Invoice route answers 403 `business_only` to an account that is not a Business account.',
      create: 'POST `/v1/invoices`: `Idempotency-Key` required; 201 draft; a repeated key returns the original draft.',
      'create-cap': 'POST `/v1/invoices`: 400 `invalid_request` for a total of FJD 5,000.00 or more.',
      list: 'GET `/v1/invoices`: `limit` 1 to 100 (default 10), `starting_after` an Invoice id returns older ones; newest first.',
      get: 'GET `/v1/invoices/{id}`: 200 Invoice; 404 for no such Invoice.',
      send: 'POST `/v1/invoices/{id}/send`: `Idempotency-Key` required; 200 sent; a retried key returns the original result and uses no second number; 409 `invalid_state` unless a draft.',
      void: 'POST `/v1/invoices/{id}/void`: `Idempotency-Key` required; 200 void, or the original result of a retried key; 409 `invalid_state` unless sent.',
      pdf: 'GET `/v1/invoices/{id}/pdf`: 200 `application/octet-stream` once sent; 409 `invalid_state` for a draft.',
    },
  },
  'merchant-payout-endpoints': {
    heading: 'Merchant and Payouts',
    level: 3,
    parent: 'Endpoints',
    rules: {
      me: 'GET `/v1/merchants/me`: 200 Merchant; 401 without a valid key.',
      list: 'GET `/v1/payouts`: `starting_after` a Payout id, `limit` 1 to 100 (default 10); oldest id first; `hasMore` while more follow.',
      get: 'GET `/v1/payouts/{id}`: 200 Payout; 404 for no such Payout.',
      'no-create': 'Payouts cannot be created through the API.',
    },
  },
  'api-key-endpoints': {
    heading: 'API keys',
    level: 3,
    parent: 'Endpoints',
    rules: {
      create: 'POST `/api-keys` with `type` and `mode`: 200 with the `key` object.',
      list: 'GET `/api-keys`: the keys (id, type, mode, masked values).',
      rotate: 'POST `/api-keys/{id}/rotate`: a new secret that shadows the old for 72 hours, then the old stops working.',
      revoke: 'POST `/api-keys/{id}/revoke`: the key stops working immediately.',
    },
  },
  'webhook-endpoint-endpoints': {
    heading: 'Webhook endpoints',
    level: 3,
    parent: 'Endpoints',
    rules: {
      create: 'POST `/webhook-endpoints` with an HTTPS `url`: 200 with the `endpoint` object.',
      list: 'GET `/webhook-endpoints`: ids and URLs, never secrets.',
      delete: 'DELETE `/webhook-endpoints/{id}` deletes the endpoint.',
      rotate: 'POST `/webhook-endpoints/{id}/rotate`: a new signing secret; the old keeps verifying for 72 hours, then stops.',
    },
  },
  idempotency: {
    heading: 'Idempotency',
    level: 3,
    parent: 'Endpoints',
    rules: {
      required: '`Idempotency-Key` is required on create Checkout Session, create Invoice, send Invoice and void Invoice.',
      replay: 'Repeating a key returns the original result instead of repeating the change.',
      window: 'Replayed responses are stored about 24 hours.',
      reused: 'For Checkout Sessions, a key reused with a different amount, currency or quote returns 409 `idempotency_key_reused`.',
    },
  },
  authentication: {
    heading: 'Authentication',
    level: 2,
    rules: {
      bearer: '1. Every request carries `Authorization: Bearer <API_KEY>`; a missing or invalid key returns 401.',
      'key-types': '2. Secret keys are `sk_test_`/`sk_live_` with full access; publishable keys `pk_test_`/`pk_live_` may only create intents and drive hosted checkout.',
      'publishable-forbidden': '3. A publishable key used anywhere else is refused with `permission_error` / `publishable_key_forbidden`.',
      'key-mode': '4. The key\'s mode sets the mode of everything created with it; its merchant and mode scope all reads.',
      'secret-everywhere': '5. All `/v1` endpoints are documented for a secret key.',
      'key-lifecycle': '6. Keys are created with `POST /api-keys` (plaintext once), rotated (72-hour overlap) or revoked (immediate).',
      dashboard: '7. Keys can also be created in the dashboard\'s Developer section.',
      business: '8. Invoice endpoints need a Business account, otherwise 403 `business_only`; `quote` on checkout needs one too.',
    },
  },
  events: {
    heading: 'Events',
    level: 2,
    rules: {
      'one-mode': 'Each endpoint hears one mode, and the payload says which mode it came from.',
      'webhook-verified': '`webhook.verified` is sent once after registration or secret rotation; delivery to an unverified endpoint is skipped.',
      'session-succeeded': '`checkout_session.succeeded` is sent when a session becomes `succeeded`.',
      'session-cancelled': '`checkout_session.cancelled` is sent when a session becomes `cancelled` (cancel call or expiry).',
      'payment-events': '`payment.processing`, `payment.succeeded`, `payment.failed` follow the payment intent.',
      'disbursement-sent': '`disbursement.sent` is sent after the daily disbursement run.',
      'disbursement-failed': '`disbursement.failed` is sent when a disbursement bounces.',
      'session-payload': 'Checkout Session event payloads carry the session metadata, the mode and `invoiceNumber` when present.',
    },
  },
  delivery: {
    heading: 'Delivery and verification',
    level: 3,
    parent: 'Events',
    rules: {
      headers: 'Each delivery carries `Service-Signature: v1=<hex>`, `Service-Timestamp` (Unix seconds) and `X-Service-Event-Id` (the event id).',
      signature: '1. The signature is HMAC-SHA256 over `<timestamp>.<body>` with the endpoint secret, hex encoded.',
      'timestamp-window': '2. A receiver rejects a delivery whose timestamp is older than 5 minutes, so the timestamp is the time of sending.',
      'retry-same-id': '3. Receivers deduplicate on the event id; retries re-send the same id.',
      additive: '4. Payloads are additive and unversioned: fields are only ever added.',
      'rotation-overlap': '5. During the 72 hours after a secret rotation, the old secret still verifies.',
    },
  },
  errors: {
    heading: 'Errors',
    level: 2,
    rules: {
      envelope: 'Every error response has the body `{ error: { code, message } }`; clients branch on `code`.',
      'invalid-request': '400 `invalid_request`: invalid body or query; checkout amount or converted quote of FJD 5,000.00 or more; Invoice total of FJD 5,000.00 or more (also refused on send and void).',
      unauthorized: '401: invalid or missing API key.',
      'business-only': '403 `business_only`: not a Business account, on any Invoice endpoint.',
      'not-found': '404: no such object for this merchant and mode.',
      'invalid-state': '409 `invalid_state`: cancel of a non-pending session; send of a non-draft Invoice; void of a non-sent Invoice; PDF of a draft.',
      'payment-in-progress': '409 `payment_in_progress`: cancel of a session the customer has started paying.',
      'idempotency-key-reused': '409 `idempotency_key_reused`: same key, different amount, currency or quote.',
      'live-mode-unavailable': '409 `live_mode_unavailable`: Live key while no Provider takes Live payments.',
      'quote-live': '409 `quote_unavailable_in_live_mode`: `quote` sent with a Live key.',
      'publishable-key-forbidden': '`permission_error` / `publishable_key_forbidden`: a publishable key used outside its scope.',
    },
  },
  limits: {
    heading: 'Limits',
    level: 2,
    rules: {
      'checkout-amount': 'Checkout `amount` and converted quote amount: at most 499999 FJD cents, in both modes.',
      'invoice-total': 'Invoice `total` with tax: at most 499999 FJD cents, in both modes.',
      'invoice-items': 'Invoice `items`: 1 to 50.',
      'item-quantity': 'Item `quantity`: 1 to 9999.',
      'item-description': 'Item `description`: 200 chars.',
      'customer-name': '`customerName`: 100 chars.',
      'tax-percent': '`taxPercent`: up to 100, 2 decimal places.',
      metadata: 'Checkout `metadata`: 20 pairs, key at most 40 chars, value at most 500 chars.',
      'redirect-urls': '`successUrl`, `cancelUrl`: 2048 chars, HTTPS.',
      'customer-email': '`customerEmail`: 254 chars; kept 30 days after the session ends.',
      'expires-at': '`expiresAt`: 30 minutes to 24 hours from now; default 24 hours.',
      'list-limit': 'List `limit`: 1 to 100, default 10.',
      'idempotency-window': 'Idempotent replay storage: about 24 hours.',
      'rotation-overlap': 'Key or secret rotation overlap: 72 hours.',
      'timestamp-window': 'Webhook timestamp replay window: 5 minutes.',
      'rate-limit': 'Rate limit on intent creation: secret key 10,000 requests per minute; publishable key 120 requests per minute.',
    },
  },
  versioning: {
    heading: 'Versioning',
    level: 2,
    rules: {
      'v1-prefix': 'Paths of the payment API carry the major version prefix `/v1`; the currency is always FJD in v1.',
      'additive-payloads': 'Webhook payloads are additive and unversioned; receivers ignore unknown fields.',
    },
  },
} as const satisfies Record<string, SpecSection>

type Sections = typeof SECTIONS
/** A rule's id: its section's key and its own, e.g. `limits.checkout-amount`. */
export type RuleId = { [S in keyof Sections]: `${S & string}.${keyof Sections[S]['rules'] & string}` }[keyof Sections]

export interface SpecRule {
  id: RuleId
  section: SpecSection
  text: string
}

/** Every section in the spec's order. */
export const SPEC_SECTIONS: readonly SpecSection[] = Object.values(SECTIONS)

/** Every rule in the spec's order. */
export const SPEC_RULES: readonly SpecRule[] = Object.entries(SECTIONS).flatMap(([key, section]) =>
  Object.entries(section.rules).map(([rule, text]) => ({ id: `${key}.${rule}` as RuleId, section, text: text as string })),
)

/** A section's name as docs print it: `Endpoints › Checkout Sessions`. */
export const sectionTitle = (section: SpecSection): string => (section.parent ? `${section.parent} › ${section.heading}` : section.heading)

/** Rules no HTTP client can observe: docs list them with the reason, and the coverage test accepts them without a case. */
export const UNOBSERVABLE_RULES: readonly UnobservableRule[] = [
  { rule: 'authentication.dashboard', why: 'The dashboard is a web page for people, not part of the HTTP API; the suite creates keys with `POST /api-keys`.' },
]

/** Where the simulator departs from a rule on purpose, and the page that says why; no case asserts the departure. */
export interface Departure {
  rules: readonly RuleId[]
  what: string
  doc: string
}

export const DEPARTURES: readonly Departure[] = [
  {
    rules: ['create-checkout-session.success-url', 'create-checkout-session.cancel-url', 'limits.redirect-urls', 'webhook-endpoint-endpoints.create'],
    what: 'In test mode `http://localhost`, `http://127.0.0.1`, `http://[::1]` (and `--allowed-host` names) pass where the spec asks for HTTPS, so local apps and receivers work without certificates; live mode takes HTTPS only. The cases check that a plain `http://` address elsewhere is refused.',
    doc: 'docs/simulator.md#http-urls-of-allowed-hosts-in-test-mode',
  },
  {
    rules: ['invoice-states.void-refused'],
    what: 'Void while the customer is paying answers 409 `payment_in_progress`: the spec refuses it without naming a code (its void row lists only `invalid_state`), so the case checks the 409 and that the Invoice stays sent.',
    doc: 'docs/simulator.md#invoices',
  },
]

/**
 * What the spec leaves open, with the simulator's choice. A conformance case
 * never asserts these (another service may choose differently); they are
 * listed so a reader knows where the simulator had to decide.
 */
export const NOT_SHOWN: readonly NotShown[] = [
  { section: 'What the service does', topic: 'List of Providers and their sandbox behaviour', choice: 'Card, M-PAiSA and MyCash; in test mode the outcome is chosen on the hosted page or with `POST /_sim/checkout-sessions/{id}/pay`.', doc: 'docs/simulator.md#payments' },
  { section: 'Invoice', topic: 'Tax rounding rule', choice: 'Nearest cent, halves up, in integer arithmetic (12.5 % of 1,001 cents is 125).', doc: 'docs/simulator.md#invoices' },
  { section: 'States and transitions › Invoice', topic: 'Transitions out of `paid` or `void`', choice: 'None: both are final; send and void answer 409 `invalid_state`.', doc: 'docs/simulator.md#invoices' },
  { section: 'Endpoints › API keys', topic: 'Response bodies of list, rotate and revoke', choice: '`{data: [key]}`, `{key, previous}` (the new key with its plaintext once), `{key}`.', doc: 'docs/simulator.md#merchants-and-keys' },
  { section: 'Endpoints › Webhook endpoints', topic: 'Response bodies of list, delete and rotate', choice: '`{data: [endpoint]}`, `{id, deleted: true}`, `{endpoint}` with the new secret once.', doc: 'docs/webhooks.md#endpoints' },
  { section: 'Endpoints', topic: 'Whether `/api-keys` and `/webhook-endpoints` carry `/v1`', choice: 'Both answer with and without the prefix.', doc: 'docs/simulator.md#merchants-and-keys' },
  { section: 'Events', topic: 'Name of the event for a `failed` Checkout Session', choice: '`checkout_session.failed`.', doc: 'docs/webhooks.md#events-and-their-payloads' },
  { section: 'Events', topic: 'Complete payload fields of every event', choice: '`{event_id, type, mode, createdAt, data: {object}}`; the object is the resource as the API returns it.', doc: 'docs/webhooks.md#events-and-their-payloads' },
  { section: 'Events', topic: 'Retry schedule and attempt count', choice: '9 attempts: at once, then 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h, on the merchant\'s clock.', doc: 'docs/webhooks.md#delivery' },
  { section: 'Events', topic: 'How an endpoint is bound to one mode', choice: 'It hears the mode of the key that registered it.', doc: 'docs/webhooks.md#endpoints' },
  { section: 'Events', topic: 'The payment intent object; how payment.* and disbursement.* events relate to sessions and Payouts', choice: '`payment.*` carry the intent `{id, checkoutSessionId, …}` of one session; `disbursement.*` carry the Payout.', doc: 'docs/webhooks.md#events-and-their-payloads' },
  { section: 'Errors', topic: 'Codes of 401 and 404 answers', choice: '401 `missing_api_key` or `invalid_api_key`; 404 `not_found`.', doc: 'docs/simulator.md#errors' },
  { section: 'Errors', topic: 'HTTP status of the publishable-key error', choice: '403, `{type: "permission_error", code: "publishable_key_forbidden"}`.', doc: 'docs/simulator.md#authentication' },
  { section: 'Errors', topic: 'Codes beyond those listed', choice: '`payload_too_large` (413), `unsupported_media_type` (415), `live_key_requires_live_key`, `live_key_required` (403), `internal_error` (500), `storage_unavailable` (503), and more in the table.', doc: 'docs/simulator.md#errors' },
  { section: 'Limits', topic: 'Rate limits of other endpoints', choice: 'None.', doc: 'docs/simulator.md#checkout-sessions' },
  { section: 'Limits', topic: 'Response when a rate limit is exceeded', choice: '429 `rate_limited` with `Retry-After` in seconds; fixed one-minute windows on the merchant\'s clock.', doc: 'docs/simulator.md#checkout-sessions' },
  { section: 'Versioning', topic: 'Version selection by header; deprecation policy', choice: 'None: `/v1` is the only version, and nothing is deprecated.', doc: 'docs/simulator.md#versioning' },
]
