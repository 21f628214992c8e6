import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { ApiError } from '../errors.js'
import {
  errorEnvelopeSchema,
  type AdvanceClockRequest,
  type AdvanceClockResponse,
  type ApiKeyList,
  type ApproveVerificationResponse,
  type CheckoutSession,
  type CheckoutSessionList,
  type Clock,
  type CreateApiKeyRequest,
  type createApiKeyResponseSchema,
  type CreateCheckoutSessionRequest,
  type ListCheckoutSessionsQuery,
  type MerchantMe,
  type PayResponse,
  type PaySessionRequest,
  type rejectVerificationRequestSchema,
  type RevokeApiKeyResponse,
  type RotateApiKeyResponse,
  type Settings,
  type SignupRequest,
  type SignupResponse,
  type SubmitVerificationRequest,
  type UpdateSettingsRequest,
  type verificationResponseSchema,
} from '../schemas/index.js'

export type CreateApiKeyResponse = z.infer<typeof createApiKeyResponseSchema>
export type VerificationResponse = z.infer<typeof verificationResponseSchema>
export type RejectVerificationRequest = z.infer<typeof rejectVerificationRequestSchema>

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
}

/** A key for one logical create/send/void: a retry of that operation must reuse it. */
export const newIdempotencyKey = (): string => randomUUID()

// Errors that mean no connection was made, so the request certainly did not
// reach the simulator; anything else may have been half-processed.
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

const id = (value: string): string => encodeURIComponent(value)

/**
 * The typed HTTP client of the simulator: one generic request() that turns
 * every failure into an ApiError, and one method per endpoint. got is loaded
 * on the first request so that commands which never call the API start fast.
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
    const headers: Record<string, string> = { accept: 'application/json' }
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

    const { default: got, RequestError } = await import('got')
    const url = `${this.baseUrl}${options.path}`
    let response
    try {
      response = await got(url, {
        method: options.method,
        headers,
        json: options.body,
        searchParams: definedEntries(options.query),
        responseType: 'text',
        throwHttpErrors: false,
        followRedirect: false,
        // The CLI reports failures at once; a retried POST could also repeat
        // a change that has no idempotency key.
        retry: { limit: 0 },
      })
    } catch (error) {
      if (error instanceof RequestError && CONNECT_ERROR_CODES.has(error.code)) {
        throw new ApiError(0, 'connection_failed', `Could not reach the simulator at ${this.baseUrl}. Start it with \`bula serve\`.`)
      }
      if (error instanceof RequestError) {
        throw new ApiError(0, 'network_error', `${options.method} ${url} failed: ${error.message}`)
      }
      throw error
    }

    const body = parseJson(response.body)
    if (response.statusCode >= 200 && response.statusCode < 300 && body !== undefined) return body as T
    const envelope = errorEnvelopeSchema.safeParse(body)
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
