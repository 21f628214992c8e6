import { performance } from 'node:perf_hooks'
import { postReadingAtMost } from '../webhooks/answer.js'
import { signedHeaders } from '../webhooks/signature.js'

/** As long as the simulator waits for a receiver (docs/webhooks.md, Delivery). */
const FORWARD_TIMEOUT_MS = 10_000

/** How much of the receiver's answer a delivery keeps, for display. */
const RESPONSE_PREVIEW_CHARS = 200

export interface ForwardedEvent {
  eventId: string
  type: string
  /** When the event happened on the merchant's clock (its `createdAt`); null when the payload has none. */
  createdAt: number | null
  /** The payload exactly as the stream carried it: the signature covers these bytes. */
  body: string
}

export interface ForwardResult {
  /** When the request was sent (Unix ms, wall clock). */
  at: number
  eventId: string
  type: string
  /** When the event happened on the merchant's clock, which is what listen shows: a clock advanced by days moves it. */
  createdAt: number | null
  /** HTTP status, or null when no answer came. */
  status: number | null
  latencyMs: number
  /** Why no answer came (refused, timed out), else null. */
  error: string | null
  /** The start of the receiver's answer. */
  response: string
}

export interface ForwardOptions {
  url: string
  secret: string
  userAgent?: string
  /** Gives up on the receiver at once, e.g. on Ctrl-C. */
  signal?: AbortSignal
}

/**
 * POSTs one event to the local receiver as the simulator would deliver it:
 * the same body, signed with `secret` by signedHeaders, with a real
 * wall-clock Service-Timestamp so the receiver's 5-minute window applies.
 * Never throws: a failure is part of the result, shown like any delivery.
 */
export async function forwardEvent(event: ForwardedEvent, options: ForwardOptions): Promise<ForwardResult> {
  const at = Date.now()
  const headers = signedHeaders([options.secret], Math.floor(at / 1000), event.body, event.eventId)
  if (options.userAgent) headers['user-agent'] = options.userAgent
  const started = performance.now()
  const result = { at, eventId: event.eventId, type: event.type, createdAt: event.createdAt }
  try {
    // As the simulator delivers: a redirect is the receiver's answer, not followed, and at most 64 KiB of an answer is read.
    const { status, text } = await postReadingAtMost(options.url, {
      headers,
      body: event.body,
      signal: AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), ...(options.signal ? [options.signal] : [])]),
    })
    return { ...result, status, latencyMs: elapsed(started), error: null, response: text.slice(0, RESPONSE_PREVIEW_CHARS) }
  } catch (error) {
    return { ...result, status: null, latencyMs: elapsed(started), error: describeFailure(error, options.url), response: '' }
  }
}

const elapsed = (started: number): number => Math.round(performance.now() - started)

function describeFailure(error: unknown, url: string): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${FORWARD_TIMEOUT_MS / 1000} s`
  const code = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined)?.code : undefined
  if (code === 'ECONNREFUSED') return `connection refused: is your app listening at ${url}?`
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error instanceof Error ? error.message : String(error)}${cause}`
}
