import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type { z } from 'zod'
import { ApiError } from '../errors.js'
import type { IncomingHttpHeaders } from 'node:http'

const requireBuiltin = createRequire(import.meta.url)
import type {
  AdvanceClockRequest,
  AdvanceClockResponse,
  ApiKeyList,
  ApproveVerificationResponse,
  CheckoutSession,
  CheckoutSessionList,
  Mode,
  Clock,
  CreateApiKeyRequest,
  DashboardLoginLink,
  createApiKeyResponseSchema,
  CreateCheckoutSessionRequest,
  CreateWebhookEndpointRequest,
  DeletedWebhookEndpoint,
  Event,
  EventList,
  EventWithDeliveries,
  ListEventsQuery,
  ResendEventResponse,
  WebhookEndpointList,
  WebhookEndpointResponse,
  ListCheckoutSessionsQuery,
  MerchantMe,
  PayResponse,
  PaySessionRequest,
  rejectVerificationRequestSchema,
  RevokeApiKeyResponse,
  RotateApiKeyResponse,
  Settings,
  SignupRequest,
  SignupResponse,
  SubmitVerificationRequest,
  UpdateSettingsRequest,
  verificationResponseSchema,
  CreateInvoiceRequest,
  Email,
  Invoice,
  InvoiceList,
  ListInvoicesQuery,
  ListPayoutsQuery,
  payInvoiceRequestSchema,
  Payout,
  PayoutList,
  payoutResponseSchema,
  UpdateInvoiceRequest,
  RequestLogQuery,
  requestLogSchema,
} from '../schemas/index.js'

export type CreateApiKeyResponse = z.infer<typeof createApiKeyResponseSchema>
export type VerificationResponse = z.infer<typeof verificationResponseSchema>
export type RejectVerificationRequest = z.infer<typeof rejectVerificationRequestSchema>
export type PayInvoiceRequest = z.infer<typeof payInvoiceRequestSchema>
export type PayoutResponse = z.infer<typeof payoutResponseSchema>
export type RequestLog = z.infer<typeof requestLogSchema>

/**
 * `GET /_sim/state`: the calling merchant's own objects of the key's mode, in
 * the state-file format of `bula serve --import`, plus whose they are.
 */
export interface MerchantState {
  format: 'bula-state'
  version: 1
  merchantId: string
  mode: Mode
  collections: Record<string, unknown[]>
}

export interface ResetStateResponse {
  merchantId: string
  mode: Mode
  reset: true
}

export interface ImportStateResponse {
  merchantId: string
  mode: Mode
  /** How many objects were written. */
  imported: number
}

/** `POST /_sim/invoices/{id}/email`: the e-mail as it landed in the outbox. */
export interface EmailInvoiceResponse {
  email: Email
}

/** `GET /_sim/health`. */
export interface Health {
  status: 'ok'
  version: string
}

export interface BulaClientOptions {
  /** The simulator's address, e.g. `http://127.0.0.1:4111`. */
  baseUrl: string
  apiKey?: string
  userAgent?: string
}

export interface RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Path under the base URL, e.g. `/v1/merchants/me`; callers encode path parameters. */
  path: string
  /** Sent as JSON; omitted when undefined. */
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** False for the few `/_sim` routes that take no key. */
  auth?: boolean
  /** Sent as `Idempotency-Key`; use newIdempotencyKey() for a fresh one per logical operation. */
  idempotencyKey?: string
  /** Resolve with the raw bytes of a 2xx body instead of parsed JSON (the invoice PDF); errors are JSON still. */
  binary?: boolean
}

/** A key for one logical create/send/void: a retry of that operation must reuse it. */
export const newIdempotencyKey = (): string => randomUUID()

// Errors that mean no connection was made, so the request certainly did not
// reach the simulator; anything else may have been half-processed.
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

const id = (value: string): string => encodeURIComponent(value)

/**
 * The typed HTTP client of the simulator: one generic request() that turns
 * every failure into an ApiError, and one method per endpoint. Requests go
 * through node:http (an HTTP client library cost every command about 45 ms
 * of start-up), and zod is loaded only to read an error answer.
 */
export class BulaClient {
  readonly baseUrl: string
  private readonly apiKey: string | undefined
  private readonly userAgent: string | undefined

  constructor(options: BulaClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl)
    this.apiKey = options.apiKey
    this.userAgent = options.userAgent
  }

  async request<T>(options: RequestOptions): Promise<T> {
    const headers: Record<string, string> = { accept: options.binary ? 'application/octet-stream, application/json' : 'application/json' }
    if (options.auth !== false) {
      if (!this.apiKey) {
        throw new ApiError(
          0,
          'missing_api_key',
          'No API key: run `bula login --api-key sk_test_...`, set BULA_API_KEY, or start `bula serve` once to save the demo keys.',
        )
      }
      headers.authorization = `Bearer ${this.apiKey}`
    }
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey
    if (this.userAgent) headers['user-agent'] = this.userAgent

    const url = `${this.baseUrl}${options.path}`
    let response: HttpResponse
    try {
      response = await send(url, options.method, headers, options.body, definedEntries(options.query))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== undefined && CONNECT_ERROR_CODES.has(code)) {
        throw new ApiError(0, 'connection_failed', `Could not reach the simulator at ${this.baseUrl}. Start it with \`bula serve\`.`)
      }
      throw new ApiError(0, 'network_error', `${options.method} ${url} failed: ${(error as Error).message}`)
    }

    const succeeded = response.statusCode >= 200 && response.statusCode < 300
    if (succeeded && options.binary) return response.body as T
    const body = parseJson(response.body.toString('utf8'))
    if (succeeded && body !== undefined) return body as T
    const envelope = (await errorEnvelope()).safeParse(body)
    if (!envelope.success) {
      throw new ApiError(
        response.statusCode,
        'unexpected_response',
        `${options.method} ${url} answered HTTP ${response.statusCode} without a JSON ${
          response.statusCode < 300 ? 'body' : 'error envelope'
        }. Is ${this.baseUrl} a bula simulator?`,
      )
    }
    const { code, message, param, type } = envelope.data.error
    const retryAfter = response.headers['retry-after']
    throw new ApiError(response.statusCode, code, message, param, type, retryAfter ? { 'retry-after': retryAfter } : undefined)
  }

  health(): Promise<Health> {
    return this.request({ method: 'GET', path: '/_sim/health', auth: false })
  }

  signup(body: SignupRequest): Promise<SignupResponse> {
    return this.request({ method: 'POST', path: '/_sim/merchants', body, auth: false })
  }

  /** A one-time link into the web dashboard, signed in as this key's merchant and mode. */
  createDashboardLoginLink(): Promise<DashboardLoginLink> {
    return this.request({ method: 'POST', path: '/_sim/dashboard/login-links' })
  }

  getMe(): Promise<MerchantMe> {
    return this.request({ method: 'GET', path: '/v1/merchants/me' })
  }

  createApiKey(body: CreateApiKeyRequest): Promise<CreateApiKeyResponse> {
    return this.request({ method: 'POST', path: '/v1/api-keys', body })
  }

  listApiKeys(): Promise<ApiKeyList> {
    return this.request({ method: 'GET', path: '/v1/api-keys' })
  }

  rotateApiKey(keyId: string): Promise<RotateApiKeyResponse> {
    return this.request({ method: 'POST', path: `/v1/api-keys/${id(keyId)}/rotate` })
  }

  revokeApiKey(keyId: string): Promise<RevokeApiKeyResponse> {
    return this.request({ method: 'POST', path: `/v1/api-keys/${id(keyId)}/revoke` })
  }

  getClock(): Promise<Clock> {
    return this.request({ method: 'GET', path: '/_sim/clock' })
  }

  advanceClock(body: AdvanceClockRequest): Promise<AdvanceClockResponse> {
    return this.request({ method: 'POST', path: '/_sim/clock/advance', body })
  }

  getSettings(): Promise<Settings> {
    return this.request({ method: 'GET', path: '/_sim/settings' })
  }

  updateSettings(body: UpdateSettingsRequest): Promise<Settings> {
    return this.request({ method: 'PATCH', path: '/_sim/settings', body })
  }

  getVerification(): Promise<VerificationResponse> {
    return this.request({ method: 'GET', path: '/_sim/verification' })
  }

  submitVerification(body: SubmitVerificationRequest): Promise<VerificationResponse> {
    return this.request({ method: 'POST', path: '/_sim/verification', body })
  }

  approveVerification(): Promise<ApproveVerificationResponse> {
    return this.request({ method: 'POST', path: '/_sim/verification/approve' })
  }

  rejectVerification(body: RejectVerificationRequest): Promise<VerificationResponse> {
    return this.request({ method: 'POST', path: '/_sim/verification/reject', body })
  }

  /** `idempotencyKey` is required: a retry of the same create must send the same key. */
  createCheckoutSession(body: CreateCheckoutSessionRequest, idempotencyKey: string): Promise<CheckoutSession> {
    return this.request({ method: 'POST', path: '/v1/checkout-sessions', body, idempotencyKey })
  }

  listCheckoutSessions(query: ListCheckoutSessionsQuery = {}): Promise<CheckoutSessionList> {
    return this.request({ method: 'GET', path: '/v1/checkout-sessions', query })
  }

  /** Every page from `query.cursor` (or the newest) on, following nextCursor until it is null. */
  async listAllCheckoutSessions(query: ListCheckoutSessionsQuery = {}): Promise<CheckoutSessionList> {
    const data: CheckoutSession[] = []
    let cursor = query.cursor
    do {
      const page = await this.listCheckoutSessions({ ...query, cursor })
      data.push(...page.data)
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
    return { data, nextCursor: null }
  }

  getCheckoutSession(sessionId: string): Promise<CheckoutSession> {
    return this.request({ method: 'GET', path: `/v1/checkout-sessions/${id(sessionId)}` })
  }

  cancelCheckoutSession(sessionId: string): Promise<CheckoutSession> {
    return this.request({ method: 'POST', path: `/v1/checkout-sessions/${id(sessionId)}/cancel` })
  }

  /** The customer stand-in: pays on the hosted page with the chosen outcome (test mode). */
  payCheckoutSession(sessionId: string, body: PaySessionRequest): Promise<PayResponse> {
    return this.request({ method: 'POST', path: `/_sim/checkout-sessions/${id(sessionId)}/pay`, body })
  }

  /** Registers a receiver; the answer holds its `whsec_` signing secret, this once. */
  createWebhookEndpoint(body: CreateWebhookEndpointRequest): Promise<WebhookEndpointResponse> {
    return this.request({ method: 'POST', path: '/v1/webhook-endpoints', body })
  }

  listWebhookEndpoints(): Promise<WebhookEndpointList> {
    return this.request({ method: 'GET', path: '/v1/webhook-endpoints' })
  }

  deleteWebhookEndpoint(endpointId: string): Promise<DeletedWebhookEndpoint> {
    return this.request({ method: 'DELETE', path: `/v1/webhook-endpoints/${id(endpointId)}` })
  }

  /** A new signing secret, returned once; the old one keeps verifying until `previousSecretExpiresAt`. */
  rotateWebhookEndpoint(endpointId: string): Promise<WebhookEndpointResponse> {
    return this.request({ method: 'POST', path: `/v1/webhook-endpoints/${id(endpointId)}/rotate` })
  }

  /** The event log of the key's mode, newest first. */
  listEvents(query: ListEventsQuery = {}): Promise<EventList> {
    return this.request({ method: 'GET', path: '/_sim/events', query })
  }

  /**
   * Every event logged after `eventId`, oldest first; with no `eventId`, the
   * whole log. Pages back from the newest until it reaches `eventId`.
   */
  async listEventsAfter(eventId: string | undefined): Promise<Event[]> {
    const newestFirst: Event[] = []
    let startingAfter: string | undefined
    for (;;) {
      const page = await this.listEvents({ limit: 100, starting_after: startingAfter })
      const end = page.data.findIndex((event) => event.event_id === eventId)
      newestFirst.push(...(end < 0 ? page.data : page.data.slice(0, end)))
      if (end >= 0 || !page.hasMore) return newestFirst.reverse()
      startingAfter = page.data.at(-1)?.event_id
    }
  }

  /** The event and every delivery of it, with each attempt. */
  getEvent(eventId: string): Promise<EventWithDeliveries> {
    return this.request({ method: 'GET', path: `/_sim/events/${id(eventId)}` })
  }

  /** New deliveries of the same event (same id) to one endpoint, or to every active one. */
  resendEvent(eventId: string, endpointId?: string): Promise<ResendEventResponse> {
    return this.request({ method: 'POST', path: `/_sim/events/${id(eventId)}/resend`, body: { endpointId } })
  }

  /**
   * Opens `GET /_sim/events/stream`: the merchant's events of the key's mode
   * as Server-Sent Events, from after `lastEventId` when given (so a client
   * that reconnects misses nothing).
   */
  openEventStream(options: { lastEventId?: string; signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    return this.openSseStream('/_sim/events/stream', options)
  }

  /**
   * The merchant's API calls of the key's mode, newest first, matching
   * `status` (`404` or a class such as `4xx`) and `path` (a prefix). The
   * simulator keeps the last 1000 per merchant, in memory.
   */
  listRequestLog(query: RequestLogQuery = {}): Promise<RequestLog> {
    return this.request({ method: 'GET', path: '/_sim/logs', query })
  }

  /**
   * Opens `GET /_sim/logs/stream`: each API call of the key's merchant and
   * mode matching `query` as it finishes, one `request` message per call.
   * Calls made before it opened are not replayed: read them with
   * listRequestLog().
   */
  openRequestLogStream(
    options: { query?: Pick<RequestLogQuery, 'status' | 'path'>; signal?: AbortSignal } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    return this.openSseStream('/_sim/logs/stream', options)
  }

  /**
   * Opens a Server-Sent Events route and resolves with the body once the
   * simulator accepted the stream; the body ends when the simulator stops.
   * Uses fetch, because the body is read as it arrives.
   */
  private async openSseStream(
    path: string,
    options: { query?: RequestOptions['query']; lastEventId?: string; signal?: AbortSignal },
  ): Promise<ReadableStream<Uint8Array>> {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(definedEntries(options.query) ?? {})) search.set(name, String(value))
    const url = `${this.baseUrl}${path}${search.size === 0 ? '' : `?${search}`}`
    // Without a key the simulator itself answers missing_api_key.
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${this.apiKey ?? ''}` }
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
    if (this.userAgent) headers['user-agent'] = this.userAgent
    let response: Response
    try {
      response = await fetch(url, { headers, signal: options.signal, redirect: 'manual' })
    } catch (error) {
      if (options.signal?.aborted) throw error
      const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code
      if (code !== undefined && CONNECT_ERROR_CODES.has(code)) {
        throw new ApiError(0, 'connection_failed', `Could not reach the simulator at ${this.baseUrl}. Start it with \`bula serve\`.`)
      }
      throw new ApiError(0, 'network_error', `GET ${url} failed: ${(error as Error).message}`)
    }
    if (response.ok && response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) return response.body
    const envelope = (await errorEnvelope()).safeParse(parseJson(await response.text()))
    if (!envelope.success) {
      throw new ApiError(response.status, 'unexpected_response', `GET ${url} answered HTTP ${response.status} without an event stream. Is ${this.baseUrl} a bula simulator?`)
    }
    const { code, message, param, type } = envelope.data.error
    throw new ApiError(response.status, code, message, param, type)
  }

  /** The calling merchant's own objects in both modes (`bula state export`); no API key is in it. */
  exportState(): Promise<MerchantState> {
    return this.request({ method: 'GET', path: '/_sim/state' })
  }

  /**
   * Deletes every object of the calling merchant in both modes; its
   * identity, keys, settings, verification and clock stay.
   */
  resetState(): Promise<ResetStateResponse> {
    return this.request({ method: 'POST', path: '/_sim/state/reset' })
  }

  /** Replaces the calling merchant's objects with those of a state file exported from the same merchant. */
  importState(state: unknown): Promise<ImportStateResponse> {
    return this.request({ method: 'POST', path: '/_sim/state/import', body: state })
  }

  /** `idempotencyKey` is required: a retry of the same create must send the same key. */
  createInvoice(body: CreateInvoiceRequest, idempotencyKey: string): Promise<Invoice> {
    return this.request({ method: 'POST', path: '/v1/invoices', body, idempotencyKey })
  }

  listInvoices(query: ListInvoicesQuery = {}): Promise<InvoiceList> {
    return this.request({ method: 'GET', path: '/v1/invoices', query })
  }

  /** Every page from `query.starting_after` (or the newest) on, each starting after the last id of the one before. */
  async listAllInvoices(query: ListInvoicesQuery = {}): Promise<InvoiceList> {
    const data: Invoice[] = []
    let startingAfter = query.starting_after
    for (;;) {
      const page = await this.listInvoices({ ...query, starting_after: startingAfter })
      data.push(...page.data)
      startingAfter = page.data.at(-1)?.id
      if (!page.hasMore || startingAfter === undefined) return { data, hasMore: false }
    }
  }

  getInvoice(invoiceId: number): Promise<Invoice> {
    return this.request({ method: 'GET', path: `/v1/invoices/${invoiceId}` })
  }

  /** Assigns the number; a retry with the same key returns the first result and uses no second number. */
  sendInvoice(invoiceId: number, idempotencyKey: string): Promise<Invoice> {
    return this.request({ method: 'POST', path: `/v1/invoices/${invoiceId}/send`, idempotencyKey })
  }

  voidInvoice(invoiceId: number, idempotencyKey: string): Promise<Invoice> {
    return this.request({ method: 'POST', path: `/v1/invoices/${invoiceId}/void`, idempotencyKey })
  }

  /** The PDF the customer sees, once the Invoice is sent. */
  getInvoicePdf(invoiceId: number): Promise<Buffer> {
    return this.request({ method: 'GET', path: `/v1/invoices/${invoiceId}/pdf`, binary: true })
  }

  /** The dashboard's draft edit: only the fields given change, and `null` clears an optional one. */
  updateInvoice(invoiceId: number, body: UpdateInvoiceRequest): Promise<Invoice> {
    return this.request({ method: 'PATCH', path: `/_sim/invoices/${invoiceId}`, body })
  }

  /** The customer stand-in: pays the Invoice through its Checkout Session, as on the hosted page. */
  payInvoice(invoiceId: number, body: PayInvoiceRequest): Promise<PayResponse> {
    return this.request({ method: 'POST', path: `/_sim/invoices/${invoiceId}/pay`, body })
  }

  /** The dashboard's "e-mail the invoice": the pay link and the PDF go into the outbox. */
  emailInvoice(invoiceId: number): Promise<EmailInvoiceResponse> {
    return this.request({ method: 'POST', path: `/_sim/invoices/${invoiceId}/email` })
  }

  /** Oldest first. */
  listPayouts(query: ListPayoutsQuery = {}): Promise<PayoutList> {
    return this.request({ method: 'GET', path: '/v1/payouts', query })
  }

  /** Every page from `query.starting_after` (or the oldest) on, each starting after the last id of the one before. */
  async listAllPayouts(query: ListPayoutsQuery = {}): Promise<PayoutList> {
    const data: Payout[] = []
    let startingAfter = query.starting_after
    for (;;) {
      const page = await this.listPayouts({ ...query, starting_after: startingAfter })
      data.push(...page.data)
      startingAfter = page.data.at(-1)?.id
      if (!page.hasMore || startingAfter === undefined) return { data, hasMore: false }
    }
  }

  getPayout(payoutId: string): Promise<Payout> {
    return this.request({ method: 'GET', path: `/v1/payouts/${id(payoutId)}` })
  }

  /** The dashboard's "pay out now" (manual schedule only): sweeps the key's mode balance into a Payout. */
  requestPayout(): Promise<PayoutResponse> {
    return this.request({ method: 'POST', path: '/_sim/payouts/request' })
  }
}

/** Checks the address once, up front, and drops trailing slashes so paths join cleanly. */
/** The error envelope's schema, loaded with zod only when an answer is not a success. */
async function errorEnvelope() {
  return (await import('../schemas/common.js')).errorEnvelopeSchema
}

interface HttpResponse {
  statusCode: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/**
 * One HTTP request, the whole answer read as bytes: no retries, no redirects
 * followed, any status resolved (the caller reads error envelopes). Rejects
 * only when no complete answer arrived; the error keeps its system `code`.
 */
async function send(
  url: string,
  method: RequestOptions['method'],
  headers: Record<string, string>,
  body: unknown,
  query: Record<string, string | number | boolean> | undefined,
): Promise<HttpResponse> {
  const target = new URL(url)
  for (const [name, value] of Object.entries(query ?? {})) target.searchParams.set(name, String(value))
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8')
  const requestHeaders: Record<string, string | number> = { ...headers }
  if (payload) {
    requestHeaders['content-type'] = 'application/json'
    requestHeaders['content-length'] = payload.length
  }
  // require, not import(): the ESM facade of node:http reads every export, and its lazy
  // ones load undici, which cost a CLI command about 10 ms of its start (docs/performance.md).
  const { request } = requireBuiltin(target.protocol === 'https:' ? 'node:https' : 'node:http') as typeof import('node:http')
  return new Promise<HttpResponse>((resolve, reject) => {
    const outgoing = request(target, { method, headers: requestHeaders }, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('error', reject)
      incoming.on('end', () => resolve({ statusCode: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }))
      // After 'end' this changes nothing; before it, the answer was cut off.
      incoming.on('close', () => {
        if (!incoming.complete) reject(new Error('the connection closed before the whole answer arrived'))
      })
    })
    outgoing.on('error', reject)
    outgoing.end(payload)
  })
}

function normalizeBaseUrl(baseUrl: string): string {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ApiError(0, 'invalid_base_url', `Invalid base URL "${baseUrl}": use an http(s) address such as http://127.0.0.1:4111.`)
  }
  return url.href.replace(/\/+$/, '')
}

function definedEntries(query: RequestOptions['query']): Record<string, string | number | boolean> | undefined {
  if (!query) return undefined
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as Record<
    string,
    string | number | boolean
  >
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
