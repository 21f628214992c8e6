import { randomBytes } from 'node:crypto'
import { formatDuration } from '../duration.js'
import type { CheckoutSession, Event } from '../schemas/index.js'
import { postReadingAtMost } from './answer.js'
import { DEFAULT_TOLERANCE_SECONDS, signedHeaders } from './signature.js'

/** The deliveries `bula webhooks check` sends, in this order. */
export type WebhookCheckCaseName = 'signed' | 'bad_signature' | 'stale_timestamp' | 'replay' | 'unknown_fields' | 'rotation'

/** The answer a receiver must give: acknowledge (2xx) or refuse as the sender's fault (4xx). */
export type WebhookCheckExpectation = '2xx' | '4xx'

/** The subset of fetch's RequestInit a check sends; global fetch satisfies WebhookSender. */
export interface WebhookRequestInit {
  method: 'POST'
  headers: Record<string, string>
  body: string
  /** Deliveries do not follow redirects, so a check must not either. */
  redirect: 'manual'
  signal: AbortSignal
}

export type WebhookSender = (url: string, init: WebhookRequestInit) => Promise<{ status: number; body: ReadableStream<Uint8Array> | null }>

/**
 * The sender of `bula webhooks check`: the simulator's own transport
 * (postReadingAtMost), reading the status line only, so a receiver on a port
 * fetch refuses (6000, 10080) is checked as it will be delivered to.
 */
export const sendReadingStatusOnly: WebhookSender = async (url, init) => ({ status: (await postReadingAtMost(url, init, 0)).status, body: null })

export interface WebhookCheckOptions {
  url: string
  /** The endpoint's `whsec_` signing secret, as the receiver knows it. */
  secret: string
  /** Longest wait for each answer. */
  timeoutMs: number
  send: WebhookSender
  /** Now in Unix milliseconds; default the system clock. */
  now?: () => number
}

export interface WebhookCheckCaseResult {
  name: WebhookCheckCaseName
  /** What was sent, in words. */
  title: string
  eventId: string
  expected: WebhookCheckExpectation
  /** The receiver's HTTP status, or null when no answer came (see error). */
  status: number | null
  /** Why no answer came: a refused connection, a timeout. */
  error: string | null
  /** Time until the status line arrived, or until the failure. */
  latencyMs: number
  passed: boolean
  /** What to change in the receiver, when the case failed. */
  hint: string | null
}

export interface WebhookCheckResult {
  url: string
  passed: boolean
  cases: WebhookCheckCaseResult[]
}

/** Twice the receiver's window, so modest clock skew between this machine and the receiver's cannot bring it back inside. */
const STALE_AGE_SECONDS = 2 * DEFAULT_TOLERANCE_SECONDS
const STALE_AGE = formatDuration(STALE_AGE_SECONDS * 1000)
const TOLERANCE = formatDuration(DEFAULT_TOLERANCE_SECONDS * 1000)

/** A signing secret the receiver cannot know, so its signatures are well formed but wrong. */
const wrongSecret = (): string => `whsec_${randomBytes(24).toString('hex')}`

const newId = (prefix: string): string => `${prefix}_${randomBytes(10).toString('hex')}`

interface PlannedDelivery {
  name: WebhookCheckCaseName
  title: string
  expected: WebhookCheckExpectation
  eventId: string
  body: string
  /** One `v1=` signature per secret, in this order: two during a secret's rotation overlap. */
  signingSecrets: string[]
  /** How long before sending the delivery claims to have been signed. */
  signedAgoSeconds: number
}

/**
 * Sends the six deliveries one after another and reports how the receiver
 * answered each. Never throws for the receiver's sake: a refused connection
 * or a timeout is a failed case.
 */
export async function checkWebhookReceiver(options: WebhookCheckOptions): Promise<WebhookCheckResult> {
  const now = options.now ?? Date.now
  const cases: WebhookCheckCaseResult[] = []
  for (const delivery of planDeliveries(options.secret, now())) {
    cases.push(await send(delivery, options, now, cases[0]))
  }
  return { url: options.url, passed: cases.every((result) => result.passed), cases }
}

/** Sent in this order: the replay repeats the first delivery, so it must come after it. */
function planDeliveries(secret: string, nowMs: number): PlannedDelivery[] {
  const planned = (
    name: WebhookCheckCaseName,
    title: string,
    expected: WebhookCheckExpectation,
    event: Event,
    signing: Partial<Pick<PlannedDelivery, 'signingSecrets' | 'signedAgoSeconds'>> = {},
  ): PlannedDelivery => ({
    name,
    title,
    expected,
    eventId: event.event_id,
    body: JSON.stringify(event),
    signingSecrets: signing.signingSecrets ?? [secret],
    signedAgoSeconds: signing.signedAgoSeconds ?? 0,
  })
  const signed = planned('signed', 'correctly signed event', '2xx', succeededEvent(nowMs))
  return [
    signed,
    planned('bad_signature', 'signed with another secret', '4xx', succeededEvent(nowMs), { signingSecrets: [wrongSecret()] }),
    planned('stale_timestamp', `signed ${STALE_AGE} ago`, '4xx', succeededEvent(nowMs - STALE_AGE_SECONDS * 1000), {
      signedAgoSeconds: STALE_AGE_SECONDS,
    }),
    // A retry: the same event id and body as the first delivery, signed anew when sent.
    { ...signed, name: 'replay', title: 'first event again, same id', expected: '2xx' },
    planned('unknown_fields', 'event with fields added later', '2xx', withUnknownFields(succeededEvent(nowMs))),
    // During the 72 hours after a rotation the header carries two signatures, the new secret's first (spec, Delivery 5).
    planned('rotation', 'signed with a new secret and with yours, as during a rotation', '2xx', succeededEvent(nowMs), {
      signingSecrets: [wrongSecret(), secret],
    }),
  ]
}

/** A test-mode `checkout_session.succeeded` for a fresh session, as the service sends it. */
function succeededEvent(paidAtMs: number): Event {
  const sessionId = newId('cs')
  // Created two minutes before it was paid, with the default 24-hour expiry.
  const createdAt = paidAtMs - 2 * 60 * 1000
  const session: CheckoutSession = {
    id: sessionId,
    status: 'succeeded',
    mode: 'test',
    amount: 4550,
    currency: 'FJD',
    hostedUrl: `http://127.0.0.1:4111/pay/${sessionId}`,
    metadata: { order_id: `order_${randomBytes(3).toString('hex')}` },
    expiresAt: createdAt + 24 * 60 * 60 * 1000,
    createdAt,
    successUrl: 'https://kaistore.fj/thanks',
    cancelUrl: 'https://kaistore.fj/cart',
  }
  return { event_id: newId('evt'), type: 'checkout_session.succeeded', mode: 'test', createdAt: paidAtMs, data: { object: session } }
}

/** Payloads are additive (spec): new fields may appear at any level, and receivers must accept them. */
function withUnknownFields(event: Event): Event & Record<string, unknown> {
  return {
    ...event,
    addedLater: { note: 'a field this receiver does not know yet' },
    data: { object: { ...event.data.object, addedLater: 'a field this receiver does not know yet' } },
  }
}

async function send(
  delivery: PlannedDelivery,
  options: WebhookCheckOptions,
  now: () => number,
  signedCase: WebhookCheckCaseResult | undefined,
): Promise<WebhookCheckCaseResult> {
  const signedAt = Math.floor(now() / 1000) - delivery.signedAgoSeconds
  const headers = signedHeaders(delivery.signingSecrets, signedAt, delivery.body, delivery.eventId)
  const started = performance.now()
  let status: number | null = null
  let error: string | null = null
  try {
    const response = await options.send(options.url, {
      method: 'POST',
      headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    })
    status = response.status
    // The status line is the verdict: the body is not read, and cancelling it lets the connection go, however much a receiver would send.
    await response.body?.cancel().catch(() => undefined)
  } catch (failure) {
    error = describeFailure(failure, options.timeoutMs)
  }
  const latencyMs = Math.round(performance.now() - started)
  const passed = status !== null && statusClass(status) === delivery.expected
  return {
    name: delivery.name,
    title: delivery.title,
    eventId: delivery.eventId,
    expected: delivery.expected,
    status,
    error,
    latencyMs,
    passed,
    hint: passed ? null : hintFor(delivery.name, status, error, options.timeoutMs, signedCase),
  }
}

const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`

/** fetch and postReadingAtMost report a network failure as an Error whose cause says which. */
function describeFailure(failure: unknown, timeoutMs: number): string {
  if (failure instanceof Error && failure.name === 'TimeoutError') return `no answer within ${formatDuration(timeoutMs)}`
  const cause = failure instanceof Error ? (failure.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return failure instanceof Error ? failure.message : String(failure)
}

const SIGNED_STRING = 'HMAC-SHA256 of `<Service-Timestamp>.<raw body>` with the endpoint secret'

function hintFor(
  name: WebhookCheckCaseName,
  status: number | null,
  error: string | null,
  timeoutMs: number,
  signedCase: WebhookCheckCaseResult | undefined,
): string {
  if (status === null) {
    return error?.startsWith('no answer')
      ? `answer within ${formatDuration(timeoutMs)}: acknowledge with a 2xx first, then do slow work`
      : `could not reach the receiver (${error}): is it running at this URL?`
  }
  if (status >= 300 && status < 400) return 'deliveries do not follow redirects: give the URL that answers directly'
  // A wrong secret or a broken verifier refuses every valid delivery; the
  // specific hints below would send the reader after the wrong cause.
  if (name !== 'signed' && status >= 400 && signedCase?.status === status) {
    return `refused like the correctly signed event (${status}): make \`signed\` pass first`
  }
  switch (name) {
    case 'signed':
      return `your receiver refused a correctly signed event: verify ${SIGNED_STRING}, on the raw body before any JSON parsing, and check the secret`
    case 'bad_signature':
      return status < 300
        ? `your receiver accepted a bad signature: verify Service-Signature with ${SIGNED_STRING}`
        : 'refuse a bad signature with a 4xx: a 5xx says your receiver failed, and the delivery is retried'
    case 'stale_timestamp':
      return status < 300
        ? `your receiver accepted a delivery signed ${STALE_AGE} ago: refuse a Service-Timestamp older than ${TOLERANCE}`
        : 'refuse a stale timestamp with a 4xx: a 5xx says your receiver failed, and the delivery is retried'
    case 'replay':
      return 'your receiver refused a repeated event: retries re-send the same event_id, so answer 2xx and skip the work already done'
    case 'unknown_fields':
      return 'your receiver refused a payload with unknown fields: payloads are additive, so ignore fields you do not know'
    case 'rotation':
      return 'your receiver refused a delivery whose second v1= signature is yours: check every v1= value of Service-Signature, since a rotation sends two'
  }
}
