import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Got, Method, RequestError, Response as GotResponse } from 'got'
import type { z } from 'zod'
import { readAtMost } from '../bounded-read.js'
import { byteSize } from '../byte-size.js'
import { isLoopbackHostname } from '../loopback.js'
import { ApiError } from '../errors.js'
import { packageRoot } from '../package-root.js'
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
  ApiFault,
  ApiFaultList,
  ClearedApiFaults,
  CreateApiFaultRequest,
  DeletedApiFault,
  DoctorQuery,
  DoctorReport,
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
  /**
   * How many times a request that may safely be sent again is retried
   * (default 2): a GET, or a write with an Idempotency-Key, after a 429, a
   * 5xx or a connection that broke. 0 turns retries off.
   */
  retries?: number
  /** Longest `Retry-After` waited for before a retry, in ms (default 15 s); a longer one fails at once with the 429. */
  maxRetryAfterMs?: number
  /** Gives up on a request after this long, in ms (default DEFAULT_TIMEOUT_MS, 60 s: a clock advance may wait on receivers). */
  timeoutMs?: number
  /** Called with a line per request, answer and retry (`bula … --verbose`). */
  log?: (line: string) => void
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

/**
 * How long a request may take, answer included, unless `timeoutMs` says
 * otherwise: 60 s, because a clock advance may wait on receivers. `bula
 * conformance` gives its requests the same.
 */
export const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The most of one answer the client reads, JSON or bytes, before it gives up
 * on it as unexpected_response. The largest answers the simulator gives are
 * a merchant's state export (`bula state export`), which can pass 16 MiB
 * (an import takes up to 16 MiB, and the merchant's objects keep growing
 * after it), the pages of an events export and an invoice PDF; 64 MiB leaves
 * room for all of them, while
 * a server streaming gigabytes no longer takes the CLI's memory with it (a
 * 2 GB JSON string took 6.3 GB and ended in ERR_STRING_TOO_LONG).
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** A key for one logical create/send/void: a retry of that operation must reuse it. */
export const newIdempotencyKey = (): string => randomUUID()

// Errors that mean no connection was made, so the request certainly did not
// reach the simulator; anything else may have been half-processed.
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

// A connection that broke or stalled: worth another try when the request may
// be repeated. Not ECONNREFUSED: nothing listens at the address, and waiting
// would only delay saying so.
const RETRY_ERROR_CODES = ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']
const RETRY_STATUS_CODES = [429, 500, 502, 503, 504]

/** What the tries of one request came to, as request() reports its failure: the first that may have reached the simulator. */
interface Tries {
  sentAndFailed?: string
}

/** What got tells its calculateDelay about a retry (its RetryObject), and all retryDelay reads of it. */
export interface RetryTiming {
  attemptCount: number
  retryAfter?: number
  computedValue: number
  /** Why the try failed, when it got no answer: got's own timeout is a `TimeoutError`. */
  error?: { name: string }
}

/**
 * The first retry waits 250 ms, then twice as long each time, up to 2 s,
 * unless the answer said how long (Retry-After). A request that got no
 * answer within the whole timeout is not sent again: a server that holds one
 * request that long holds the next, and three tries kept a hung server's
 * user waiting three minutes in silence.
 */
export function retryDelay({ attemptCount, retryAfter, computedValue, error }: RetryTiming): number {
  if (computedValue === 0 || error?.name === 'TimeoutError') return 0
  if (retryAfter !== undefined) return computedValue
  return Math.min(250 * 2 ** (attemptCount - 1), 2000)
}

/**
 * got, loaded on the first request (`bula --version` and `bula --help` never
 * pay for it), from the one-file bundle the build makes of it: about 40 ms
 * faster to load than the package's ES modules (scripts/bundle-got.mjs).
 */
let gotInstance: Got | undefined
const loadGot = (): Got =>
  (gotInstance ??= (createRequire(import.meta.url)(path.join(packageRoot(), 'dist', 'vendor', 'got.cjs')) as { default: Got }).default)

const id = (value: string): string => encodeURIComponent(value)

/**
 * The typed HTTP client of the simulator: one generic request() that turns
 * every failure into an ApiError, and one method per endpoint. Requests go
 * through got, for its retries (only of requests that may be repeated),
 * timeouts and hooks; got and zod are loaded on first use.
 */
export class BulaClient {
  readonly baseUrl: string
  private readonly apiKey: string | undefined
  private readonly userAgent: string | undefined
  private readonly retries: number
  private readonly maxRetryAfterMs: number
  private readonly timeoutMs: number
  private readonly log: ((line: string) => void) | undefined

  constructor(options: BulaClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl)
    this.apiKey = options.apiKey
    this.userAgent = options.userAgent
    this.retries = options.retries ?? 2
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 15_000
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.log = options.log
  }

  /** How to start a simulator at this client's address, for the connection_failed message. */
  private startHint(): string {
    const { hostname, port, protocol } = new URL(this.baseUrl)
    const local = isLoopbackHostname(hostname)
    if (!local || protocol !== 'http:') return `Is the simulator at ${this.baseUrl} running?`
    return `Start it with \`npx bula serve --port ${port || '80'}${hostname === '127.0.0.1' ? '' : ` --host ${hostname.replace(/^\[|\]$/g, '')}`}\`.`
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
    const tries: Tries = {}
    let response: GotResponse<Uint8Array>
    try {
      response = await this.send(url, options, headers, tries)
    } catch (error) {
      if (error instanceof ApiError) throw error
      const code = (error as RequestError).code
      const unreachable = `Could not reach the simulator at ${this.baseUrl}. ${this.startHint()}`
      // An earlier try was sent and then broke (or got a 5xx): its change may have been made, so the CLI names the
      // Idempotency-Key to retry with (withRetryHint) as for any broken connection, not only where to start a simulator.
      if (CONNECT_ERROR_CODES.has(code) && tries.sentAndFailed !== undefined) {
        throw new ApiError(0, 'network_error', `${options.method} ${url} failed: a try ended with ${tries.sentAndFailed}, and the retry after it found no simulator. ${unreachable}`)
      }
      if (CONNECT_ERROR_CODES.has(code)) throw new ApiError(0, 'connection_failed', unreachable)
      if (code === 'ETIMEDOUT') throw new ApiError(0, 'timeout', `${options.method} ${url} got no answer within ${this.timeoutMs / 1000} s.`)
      throw new ApiError(0, 'network_error', `${options.method} ${url} failed: ${(error as Error).message}`)
    }

    const succeeded = response.statusCode >= 200 && response.statusCode < 300
    const bytes = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength)
    if (succeeded && options.binary) return bytes as T
    const body = parseJson(bytes.toString('utf8'))
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

  /**
   * One request, the whole answer as bytes, any status resolved (request()
   * reads error envelopes), no redirects followed. Retried only when sending
   * it again cannot do a thing twice: a GET, or a write with an
   * Idempotency-Key (the simulator answers a repeat with the stored result).
   * An answer over MAX_ANSWER_BYTES is refused as soon as its Content-Length
   * or, when chunked, the bytes read so far say so, and is not sent again.
   */
  private async send(url: string, options: RequestOptions, headers: Record<string, string>, tries: Tries): Promise<GotResponse<Uint8Array>> {
    const tooLarge = new AbortController()
    try {
      return await this.sendWithGot(url, options, headers, tooLarge, tries)
    } catch (error) {
      if (!tooLarge.signal.aborted) throw error
      throw this.tooLargeAnswer(options.method, url, (error as RequestError).response?.statusCode ?? 0)
    }
  }

  private tooLargeAnswer(method: string, url: string, status: number): ApiError {
    return new ApiError(
      status,
      'unexpected_response',
      `${method} ${url} answered HTTP ${status} with more than ${byteSize(MAX_ANSWER_BYTES)}, the most bula reads of one answer. Is ${this.baseUrl} a bula simulator?`,
    )
  }

  private sendWithGot(url: string, options: RequestOptions, headers: Record<string, string>, tooLarge: AbortController, tries: Tries): Promise<GotResponse<Uint8Array>> {
    const got = loadGot()
    const repeatable = options.method === 'GET' || options.idempotencyKey !== undefined
    const log = this.log
    const request = got(url, {
      method: options.method as Method,
      headers,
      searchParams: definedEntries(options.query),
      ...(options.body === undefined ? {} : { json: options.body }),
      responseType: 'buffer',
      throwHttpErrors: false,
      followRedirect: false,
      timeout: { request: this.timeoutMs },
      signal: tooLarge.signal,
      retry: {
        limit: repeatable ? this.retries : 0,
        methods: [options.method as Method],
        statusCodes: RETRY_STATUS_CODES,
        errorCodes: RETRY_ERROR_CODES,
        maxRetryAfter: this.maxRetryAfterMs,
        calculateDelay: retryDelay,
      },
      hooks: {
        // A beforeRequest hook that returns a value replaces the request with it: these return nothing.
        beforeRequest: log
          ? [
              (request) => {
                log(`→ ${request.method} ${request.url?.toString() ?? url}`)
              },
            ]
          : [],
        afterResponse: log
          ? [
              (answer) => {
                log(`← ${answer.statusCode} ${options.method} ${url} in ${Math.round(answer.timings?.phases.total ?? 0)} ms (${answer.headers['x-request-id'] ?? 'no request id'})`)
                return answer
              },
            ]
          : [],
        beforeRetry: [
          (error, retryCount) => {
            const failure = error.response?.statusCode ?? error.code
            // A 5xx, or a connection that broke once the request was sent, may hide a change; a 429 refused it, and
            // nothing reached an address where nothing listens.
            const mayHaveChanged = error.response ? error.response.statusCode >= 500 : !CONNECT_ERROR_CODES.has(error.code)
            if (mayHaveChanged) tries.sentAndFailed ??= String(failure)
            log?.(`↻ retry ${retryCount} of ${options.method} ${url} after ${failure}`)
          },
        ],
      },
    })
    // Every chunk reports the bytes read and the Content-Length, if any: the first one is enough to refuse a declared size.
    request.on('downloadProgress', ({ transferred, total }) => {
      if (Math.max(transferred, total ?? 0) > MAX_ANSWER_BYTES) tooLarge.abort()
    })
    return request
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

  /** An API fault for the next requests of the key's merchant and mode to `route` (`*` or `POST /v1/checkout-sessions`). */
  async addFault(body: CreateApiFaultRequest): Promise<ApiFault> {
    return (await this.request<{ fault: ApiFault }>({ method: 'POST', path: '/_sim/faults', body })).fault
  }

  /** The API faults in force for the key's mode, oldest first. */
  listFaults(): Promise<ApiFaultList> {
    return this.request({ method: 'GET', path: '/_sim/faults' })
  }

  removeFault(faultId: string): Promise<DeletedApiFault> {
    return this.request({ method: 'DELETE', path: `/_sim/faults/${id(faultId)}` })
  }

  /** Removes every API fault of the key's mode. */
  clearFaults(): Promise<ClearedApiFaults> {
    return this.request({ method: 'DELETE', path: '/_sim/faults' })
  }

  /** What the merchant's own traffic of the key's mode says about the integration (`bula doctor`). */
  doctor(query: DoctorQuery = {}): Promise<DoctorReport> {
    return this.request({ method: 'GET', path: '/_sim/doctor', query })
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
        throw new ApiError(0, 'connection_failed', `Could not reach the simulator at ${this.baseUrl}. ${this.startHint()}`)
      }
      throw new ApiError(0, 'network_error', `GET ${url} failed: ${(error as Error).message}`)
    }
    if (response.ok && response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) return response.body
    // A refusal is read as any answer is, up to MAX_ANSWER_BYTES: a server may send one that never ends.
    const text = response.body ? await readAtMost(response.body, MAX_ANSWER_BYTES) : Buffer.alloc(0)
    if (text === undefined) throw this.tooLargeAnswer('GET', url, response.status)
    const envelope = (await errorEnvelope()).safeParse(parseJson(text.toString('utf8')))
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

/** The error envelope's schema, loaded with zod only when an answer is not a success. */
async function errorEnvelope() {
  return (await import('../schemas/common.js')).errorEnvelopeSchema
}

/** Checks the address once, up front, and drops trailing slashes so paths join cleanly. */
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
