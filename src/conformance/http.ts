import { readAtMost } from '../bounded-read.js'
import { byteSize } from '../byte-size.js'
import { DEFAULT_TIMEOUT_MS, MAX_ANSWER_BYTES } from '../client/bula-client.js'
import { ApiError } from '../errors.js'

/** One step of a case as recorded: an HTTP exchange, a webhook delivery received, or a `/_sim` control used. */
export type RecordedStep =
  | {
      request: { method: string; path: string; auth: string; idempotencyKey?: string; body?: unknown }
      response: { status: number; contentType?: string; body?: unknown }
    }
  | { delivery: { headers: Record<string, string>; body: unknown } }
  | { sim: string }

export interface Answer {
  status: number
  headers: Headers
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: unknown
  /** The body as text (empty for binary answers, see `bytes`). */
  text: string
  /** The body's bytes when it is not JSON nor text (the invoice PDF). */
  bytes?: Uint8Array
  /** `METHOD path`, for messages. */
  what: string
}

/** How much of an exchange goes into the recording: all of it, the body's shape only (lists that other cases may grow), or nothing. */
export type RecordMode = 'full' | 'shape' | false

export interface CallOptions {
  body?: unknown
  /** A body sent as is (malformed JSON); with `contentType`. */
  rawBody?: string
  contentType?: string
  idempotencyKey?: string
  headers?: Record<string, string>
  record?: RecordMode
}

/** How the exchanges of a run go: how long each may take, and who hears of them. */
export interface ExchangeOptions {
  /** Gives up on an exchange, answer included, after this long (default: the CLI client's 60 s). */
  timeoutMs?: number
  /** Called with a line per exchange (`--verbose`). */
  log?: (line: string) => void
}

/**
 * The answer to a request, whole: its body read as text or bytes before the
 * timeout, with the same signal, so a target that sends headers and then
 * stalls fails as one that never answers does. A redirect is the answer,
 * not followed: a case judges what the target itself said.
 */
export async function exchange(
  url: string,
  init: RequestInit & { asBytes?: (response: Response) => boolean },
  timeoutMs: number,
): Promise<{ response: Response; text: string; bytes?: Uint8Array }> {
  const { asBytes, ...request } = init
  try {
    const response = await fetch(url, { ...request, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
    // As the CLI's client reads one: at most MAX_ANSWER_BYTES, whatever the target keeps sending.
    const body = response.body ? await readAtMost(response.body, MAX_ANSWER_BYTES) : Buffer.alloc(0)
    if (body === undefined) {
      throw new ApiError(0, 'unexpected_response', `${request.method ?? 'GET'} ${url} answered HTTP ${response.status} with more than ${byteSize(MAX_ANSWER_BYTES)}, the most bula reads of one answer.`)
    }
    if (asBytes?.(response)) return { response, text: '', bytes: new Uint8Array(body) }
    return { response, text: body.toString('utf8') }
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error
    throw new ApiError(0, 'timeout', `${request.method ?? 'GET'} ${url} got no answer within ${timeoutMs / 1000} s.`)
  }
}

/** One key (or none) at one target, recording every exchange into the case's steps. */
export class ConformanceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string | undefined,
    /** What the recording calls this key: `secret`, `publishable`, `none`, `live secret`, ... */
    readonly label: string,
    private readonly steps: RecordedStep[] | undefined,
    /** Paths starting with these are spelled as the target wants them (`/api-keys` or `/v1/api-keys`). */
    private readonly route: (path: string) => string = (path) => path,
    private readonly options: ExchangeOptions = {},
  ) {}

  get = (path: string, options: CallOptions = {}) => this.call('GET', path, options)
  post = (path: string, body?: unknown, options: CallOptions = {}) => this.call('POST', path, { ...options, body })
  patch = (path: string, body?: unknown, options: CallOptions = {}) => this.call('PATCH', path, { ...options, body })
  put = (path: string, body?: unknown, options: CallOptions = {}) => this.call('PUT', path, { ...options, body })
  delete = (path: string, options: CallOptions = {}) => this.call('DELETE', path, options)

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const routed = this.route(path)
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
    if (this.key !== undefined) headers.authorization = `Bearer ${this.key}`
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey
    let payload: string | undefined = options.rawBody
    if (options.body !== undefined) payload = JSON.stringify(options.body)
    if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json'
    const started = performance.now()
    const { response, text, bytes } = await exchange(
      `${this.baseUrl}${routed}`,
      { method, headers, body: payload, asBytes: (answered) => !isTextual(mediaTypeOf(answered)) },
      this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    )
    this.options.log?.(`${method} ${routed} (${this.label}) → ${response.status} in ${Math.round(performance.now() - started)} ms`)
    const mediaType = mediaTypeOf(response)
    let answer: Answer
    if (bytes === undefined) {
      let body: unknown
      try {
        body = text.length > 0 ? JSON.parse(text) : undefined
      } catch {
        body = undefined
      }
      answer = { status: response.status, headers: response.headers, body, text, what: `${method} ${path}` }
    } else {
      answer = { status: response.status, headers: response.headers, body: undefined, text: '', bytes, what: `${method} ${path}` }
    }
    const record = options.record ?? 'full'
    if (this.steps && record !== false) {
      const request: Extract<RecordedStep, { request: unknown }>['request'] = { method, path, auth: this.label }
      if (options.idempotencyKey !== undefined) request.idempotencyKey = options.idempotencyKey
      if (options.body !== undefined) request.body = options.body
      else if (options.rawBody !== undefined) request.body = options.rawBody
      const recorded: Extract<RecordedStep, { response: unknown }>['response'] = { status: answer.status }
      if (mediaType !== 'application/json' && mediaType !== '') recorded.contentType = mediaType
      if (answer.body !== undefined) recorded.body = record === 'shape' ? shapeOf(answer.body) : answer.body
      else if (answer.bytes) recorded.body = '<bytes>'
      else if (answer.text.length > 0) recorded.body = '<text>'
      this.steps.push({ request, response: recorded })
    }
    return answer
  }
}

const mediaTypeOf = (response: Response): string => (response.headers.get('content-type') ?? '').split(';')[0]!.trim()

/** Read as text (and JSON when it parses): JSON, any `text/`, or no type at all. */
const isTextual = (mediaType: string): boolean => mediaType === 'application/json' || mediaType.startsWith('text/') || mediaType === ''

/** A value's shape: each leaf as its type, each array as its first element's shape. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return null
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])]
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, shapeOf(inner)]))
  return `<${typeof value}>`
}
