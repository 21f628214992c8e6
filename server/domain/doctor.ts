import type {
  DeliveryAttempt,
  DoctorEvidence,
  DoctorFinding,
  DoctorReport,
  EventType,
  InjectedFault,
  Mode,
  VerificationStatus,
} from '../../src/schemas/index.js'
import { plural } from '../../src/plural.js'
import { formatTime } from '../../src/time.js'
import { isAllowedUrl } from './urls.js'

// `bula doctor`: what the merchant's own traffic says about their
// integration (docs/faults-and-doctor.md). Each check is a rule of a sound
// integration; a finding names the rule, shows the requests, events and
// times that broke it, and says how to fix it. Pure: the service gathers
// the merchant's request log, deliveries, endpoints and sessions of one mode.

/** Why an attempt got no answer: a timeout already says how long it waited ("timed out after 10000 ms"), anything else gets the time it took. */
const noAnswerNote = (attempt: { error: string | null; latencyMs: number }): string =>
  attempt.error?.startsWith('timed out') ? attempt.error : `${attempt.error ?? 'no answer'} after ${attempt.latencyMs} ms`

/** A create sent again within this long, with the same body and a new key, is a retry that changed its key. */
export const RETRY_WINDOW_MS = 60_000
/** Fetching one Checkout Session more often than this in any minute is polling. */
export const POLL_LIMIT_PER_MINUTE = 10
/** A webhook answer slower than this is close to the timeout. */
export const SLOW_DELIVERY_MS = 5_000
/** Retry-After is in whole seconds and times are in ms: a retry this much early still counts as waiting. */
const RETRY_AFTER_SLACK_MS = 50
/** Evidence items shown per finding; the rest are counted. */
export const MAX_EVIDENCE = 20

/** A request of the merchant's log, as the checks read it (server/services/request-log.ts keeps these fields). */
export interface DoctorRequest {
  at: number
  method: string
  path: string
  status: number
  latencyMs: number
  idempotencyKey: string | null
  requestId: string
  fault: InjectedFault | null
  keyId: string
  requestDigest: string | null
  objectId: string | null
  replayed: boolean
  retryAfterS: number | null
}

export interface DoctorDelivery {
  eventId: string
  eventType: EventType
  endpointId: string
  url: string
  /** The attempts in the window. */
  attempts: readonly DeliveryAttempt[]
}

export interface DoctorEndpoint {
  id: string
  url: string
  status: 'pending' | 'active'
  createdAt: number
  /** Every attempt to deliver its `webhook.verified` event. */
  verificationAttempts: readonly (DeliveryAttempt & { eventId: string })[]
}

export interface DoctorSession {
  id: string
  createdAt: number
  successUrl: string | null
  cancelUrl: string | null
}

export interface DoctorAccount {
  verification: VerificationStatus
  hasPayoutDestination: boolean
  receiptsEnabled: boolean
}

export interface DoctorInput {
  mode: Mode
  now: number
  since: number | null
  /** The integration's requests: the bula CLI's own calls are not among them. */
  requests: readonly DoctorRequest[]
  /** How many calls of the bula CLI were left out of `requests`: the report says so. */
  bulaCliRequests: number
  eventCount: number
  deliveries: readonly DoctorDelivery[]
  endpoints: readonly DoctorEndpoint[]
  sessions: readonly DoctorSession[]
  account: DoctorAccount
}

const pathOf = (request: DoctorRequest): string => request.path.split('?')[0]!
const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300

/** What a create path makes. */
function nounOf(path: string): string {
  if (path === '/v1/checkout-sessions') return 'Checkout Session'
  if (path === '/v1/invoices') return 'Invoice'
  return 'object'
}

const evidence = (item: Partial<DoctorEvidence> & { note: string }): DoctorEvidence => ({
  at: item.at ?? null,
  requestId: item.requestId ?? null,
  eventId: item.eventId ?? null,
  objectId: item.objectId ?? null,
  note: item.note,
})

/** At most MAX_EVIDENCE items, then one saying how many more there were. */
function capped(items: DoctorEvidence[]): DoctorEvidence[] {
  if (items.length <= MAX_EVIDENCE) return items
  return [...items.slice(0, MAX_EVIDENCE), evidence({ note: `… and ${items.length - MAX_EVIDENCE} more.` })]
}

/** How a request ended, as the client met it. */
function outcome(request: DoctorRequest): string {
  const made = request.objectId === null ? '' : `, ${request.objectId}`
  if (request.status === 0) return `no answer, nothing done (fault ${request.fault?.action ?? 'reset'})`
  if (request.fault?.action === 'lose_response') return `${request.status}${made} done, but the answer was lost (fault lose_response)`
  if (request.fault?.action === 'error') return `${request.status} (fault error), nothing done`
  if (request.replayed) return `${request.status}${made}, the stored answer replayed`
  return `${request.status}${made}`
}

const requestEvidence = (request: DoctorRequest, note: string): DoctorEvidence =>
  evidence({ at: request.at, requestId: request.requestId, objectId: request.objectId, note })

const describeRequest = (request: DoctorRequest): string =>
  `${request.method} ${pathOf(request)}${request.idempotencyKey === null ? '' : ` with key ${request.idempotencyKey}`}: ${outcome(request)}`

/** Attempts at one create: it did something or might have (2xx, 5xx, 429, no answer); a 4xx refusal is not an attempt to retry. */
const isCreateAttempt = (request: DoctorRequest): boolean =>
  request.method === 'POST' &&
  request.requestDigest !== null &&
  !request.replayed &&
  (isSuccess(request.status) || request.status === 0 || request.status === 429 || request.status >= 500)

function createsRetriedWithNewKey(input: DoctorInput): DoctorFinding[] {
  const byDigest = new Map<string, DoctorRequest[]>()
  for (const request of input.requests.filter(isCreateAttempt)) byDigest.set(request.requestDigest!, [...(byDigest.get(request.requestDigest!) ?? []), request])
  const retried: DoctorRequest[][] = []
  for (const attempts of byDigest.values()) {
    let run: DoctorRequest[] = []
    for (const attempt of attempts) {
      if (run.length > 0 && attempt.at - run.at(-1)!.at > RETRY_WINDOW_MS) run = []
      if (run.length === 0) retried.push(run)
      run.push(attempt)
    }
  }
  const withNewKeys = retried.filter((run) => new Set(run.map((attempt) => attempt.idempotencyKey)).size > 1)
  if (withNewKeys.length === 0) return []
  const duplicates = withNewKeys.reduce((sum, run) => sum + Math.max(0, run.filter((attempt) => isSuccess(attempt.status)).length - 1), 0)
  const noun = nounOf(pathOf(withNewKeys[0]![0]!))
  return [
    {
      check: 'create-retried-with-new-key',
      severity: 'error',
      title:
        `${plural(withNewKeys.length, 'create')} retried with a new Idempotency-Key: ` +
        (duplicates === 0 ? 'no duplicate this time, by luck' : `${plural(duplicates, `duplicate ${noun}`)} made`),
      rule:
        'A retry of a create sends the Idempotency-Key of its first attempt, so the service answers the first result instead of ' +
        'doing the work again. With a new key per attempt, an attempt whose answer was lost after the work was done (a timeout, ' +
        'a dropped connection) makes a second object: a customer charged twice, or two invoices.',
      evidence: capped(
        withNewKeys.flatMap((run, index) =>
          run.map((attempt, position) => requestEvidence(attempt, `Create ${index + 1}, attempt ${position + 1}: ${describeRequest(attempt)}`)),
        ),
      ),
      fix:
        'Make the key once per order (e.g. `order-1042`) before the first attempt, keep it with the order, and send it on every ' +
        'retry of that create (BulaClient retries with the key you give it). Two creates that are meant to be separate differ ' +
        'in their body anyway (an order id in metadata).',
    },
  ]
}

function keysReusedForOtherRequests(input: DoctorInput): DoctorFinding[] {
  const byKey = new Map<string, DoctorRequest[]>()
  for (const request of input.requests) {
    if (request.idempotencyKey === null || request.requestDigest === null) continue
    const scope = `${request.method} ${pathOf(request)}\n${request.idempotencyKey}`
    byKey.set(scope, [...(byKey.get(scope) ?? []), request])
  }
  const items: DoctorEvidence[] = []
  let reused = 0
  for (const requests of byKey.values()) {
    const first = requests.find((request) => isSuccess(request.status) && !request.replayed)
    if (!first) continue
    // A stored key answers a different request with 409, or (where only some fields count) with the first result.
    const others = requests.filter((request) => request.at >= first.at && request !== first && request.requestDigest !== first.requestDigest && (request.status === 409 || request.replayed))
    if (others.length === 0) continue
    reused++
    items.push(requestEvidence(first, `Key ${first.idempotencyKey} first used: ${describeRequest(first)}`))
    for (const other of others) {
      items.push(
        requestEvidence(
          other,
          `The same key with a different request: ${other.status === 409 ? '409 idempotency_key_reused, refused' : `${outcome(other)}; this request's own changes were never made`}`,
        ),
      )
    }
  }
  if (reused === 0) return []
  return [
    {
      check: 'idempotency-key-reused',
      severity: 'error',
      title: `${plural(reused, 'Idempotency-Key')} reused for a different request`,
      rule:
        'An Idempotency-Key names one request. The service keeps the first result for 24 hours and answers it to any repeat; a different ' +
        'request with the same key is refused (409 idempotency_key_reused) or, where only some fields are compared, answered with the first result.',
      evidence: capped(items),
      fix: 'Derive the key from what makes the request unique (the order and its attempt to pay), never from something shared (the customer, the cart, a constant).',
    },
  ]
}

interface FailedAttempt {
  delivery: DoctorDelivery
  attempt: DeliveryAttempt
}

const attemptEvidence = ({ delivery, attempt }: FailedAttempt, what: string): DoctorEvidence =>
  evidence({ at: attempt.at, eventId: delivery.eventId, objectId: delivery.endpointId, note: `${delivery.eventType} to ${delivery.url}: ${what}` })

const urlsOf = (failed: readonly FailedAttempt[]): string => [...new Set(failed.map(({ delivery }) => delivery.url))].join(', ')

function webhookAnswers(input: DoctorInput): DoctorFinding[] {
  const errorStatus: FailedAttempt[] = []
  const noAnswer: FailedAttempt[] = []
  const slow: FailedAttempt[] = []
  for (const delivery of input.deliveries) {
    for (const attempt of delivery.attempts) {
      // A delivery fault the merchant set (`/_sim/webhook-faults`) never reached the receiver: not the receiver's doing.
      if (attempt.error?.startsWith('fault injected')) continue
      if (attempt.status === null) noAnswer.push({ delivery, attempt })
      else if (!isSuccess(attempt.status)) errorStatus.push({ delivery, attempt })
      else if (attempt.latencyMs > SLOW_DELIVERY_MS) slow.push({ delivery, attempt })
    }
  }
  const findings: DoctorFinding[] = []
  if (errorStatus.length > 0) {
    // A 4xx that speaks of the signature is most often a receiver verifying with another secret (bula listen's, or
    // one from before a rotation): the receiver is right to refuse, and its secret is what to change.
    const signatureRefusals = errorStatus.filter(({ attempt }) => attempt.status! >= 400 && attempt.status! < 500 && /signature/i.test(attempt.response))
    findings.push({
      check: 'webhook-error-status',
      severity: 'error',
      title: `Webhook endpoint answered ${plural(errorStatus.length, 'delivery', 'deliveries')} with a status other than 2xx: ${urlsOf(errorStatus)}`,
      rule:
        'A receiver answers 2xx once it has verified the signature and stored the event, for every event type, also those it ignores and ' +
        'those it has seen before. Any other answer makes the service retry for about 3 days, then give up on the event.',
      evidence: capped(errorStatus.map((failed) => attemptEvidence(failed, `HTTP ${failed.attempt.status} in ${failed.attempt.latencyMs} ms`))),
      fix:
        (signatureRefusals.length > 0
          ? `${signatureRefusals.length === 1 ? 'One answer speaks' : `${signatureRefusals.length} answers speak`} of the signature: the receiver probably verifies with another ` +
            'secret than this endpoint\'s, such as the one `bula listen --print-secret` prints, or one from before a rotation. Give it ' +
            'the endpoint\'s secret (shown once by `bula webhooks create` or `bula webhooks rotate`), e.g. as BULA_WEBHOOK_SECRET. '
          : '') +
        'Answer 2xx for each event whose signature verifies; deduplicate on event_id instead of refusing a repeat; do the work after ' +
        'answering. Answer 4xx only for a bad signature or a stale timestamp. `bula events get evt_…` shows each attempt and the answer.',
    })
  }
  if (noAnswer.length > 0) {
    findings.push({
      check: 'webhook-no-answer',
      severity: 'error',
      title: `Webhook endpoint did not answer ${plural(noAnswer.length, 'delivery', 'deliveries')} (timed out or unreachable): ${urlsOf(noAnswer)}`,
      rule: 'A receiver is up at its registered URL and answers within the timeout; a delivery without an answer is failed and retried later.',
      evidence: capped(noAnswer.map((failed) => attemptEvidence(failed, noAnswerNote(failed.attempt)))),
      fix: 'Keep the receiver running at the registered URL, and answer before doing slow work (queue it, answer 2xx, then process).',
    })
  }
  if (slow.length > 0) {
    findings.push({
      check: 'webhook-slow',
      severity: 'warning',
      title: `Webhook endpoint took over ${SLOW_DELIVERY_MS / 1000} s to answer ${plural(slow.length, 'delivery', 'deliveries')}: ${urlsOf(slow)}`,
      rule: `Answer within ${SLOW_DELIVERY_MS / 1000} seconds: a slow receiver is one hiccup away from the timeout, and a timed-out delivery is sent again.`,
      evidence: capped(slow.map((failed) => attemptEvidence(failed, `HTTP ${failed.attempt.status} after ${failed.attempt.latencyMs} ms`))),
      fix: 'Acknowledge first (2xx as soon as the signature verifies and the event is stored), then do the work in the background.',
    })
  }
  return findings
}

function unverifiedEndpoints(input: DoctorInput): DoctorFinding[] {
  // An endpoint whose check is still on its way is not judged yet.
  const unverified = input.endpoints.filter((endpoint) => endpoint.status !== 'active' && endpoint.verificationAttempts.length > 0)
  if (unverified.length === 0) return []
  return [
    {
      check: 'webhook-endpoint-unverified',
      severity: 'error',
      title: `${plural(unverified.length, 'webhook endpoint')} never verified: ${unverified.map((endpoint) => endpoint.url).join(', ')}`,
      rule: 'An endpoint hears events only after it has answered the webhook.verified event with 2xx; until then every other event skips it.',
      evidence: capped(
        unverified.map((endpoint) => {
          const last = endpoint.verificationAttempts.at(-1)!
          const answered = last.status === null ? (last.error ?? 'no answer') : `HTTP ${last.status}`
          return evidence({
            at: last.at,
            eventId: last.eventId,
            objectId: endpoint.id,
            note: `${endpoint.url}, registered ${formatTime(endpoint.createdAt, { seconds: true })}: webhook.verified answered ${answered} (${plural(endpoint.verificationAttempts.length, 'attempt')})`,
          })
        }),
      ),
      fix:
        'Answer webhook.verified with 2xx (after verifying its signature with the endpoint\'s whsec_ secret), then send it again: ' +
        '`bula events resend evt_… --endpoint we_…`, or register the endpoint again.',
    },
  ]
}

function sessionsWithoutEndpoint(input: DoctorInput): DoctorFinding[] {
  if (input.endpoints.length > 0) return []
  // The rule's other way to learn the outcome: a session the client retrieved afterwards was not left to the redirect.
  const retrieved = new Set(
    input.requests.filter((request) => request.method === 'GET' && isSuccess(request.status) && SESSION_PATH.test(pathOf(request))).map((request) => pathOf(request).split('/').at(-1)),
  )
  const unchecked = input.sessions.filter((session) => !retrieved.has(session.id))
  if (unchecked.length === 0) return []
  return [
    {
      check: 'no-webhook-endpoint',
      severity: 'error',
      title: `${plural(unchecked.length, 'Checkout Session')} created and never retrieved, and no webhook endpoint is registered in ${input.mode} mode`,
      rule:
        'Fulfil from the checkout_session.succeeded webhook (or by retrieving the session), never from the redirect alone: a customer ' +
        'who pays and closes the tab never reaches the success URL, and that order is never fulfilled.',
      evidence: capped(unchecked.map((session) => evidence({ at: session.createdAt, objectId: session.id, note: `Checkout Session ${session.id} created` }))),
      fix:
        'Register your receiver: `bula webhooks create --url https://…/webhooks` (`bula init receiver` writes a sample). `bula listen ' +
        '--forward-to` brings events to a local receiver while you develop; a deployed server needs a registered endpoint. Or retrieve ' +
        'the session (GET /v1/checkout-sessions/{id}) when the customer comes back, and fulfil from its status.',
    },
  ]
}

const SESSION_PATH = /^\/v1\/checkout-sessions\/[^/]+$/

function polling(input: DoctorInput): DoctorFinding[] {
  const bySession = new Map<string, DoctorRequest[]>()
  for (const request of input.requests) {
    if (request.method !== 'GET' || !SESSION_PATH.test(pathOf(request))) continue
    bySession.set(pathOf(request), [...(bySession.get(pathOf(request)) ?? []), request])
  }
  const items: DoctorEvidence[] = []
  for (const [path, fetches] of bySession) {
    // The busiest minute: the most fetches within 60 s of one another.
    let start = 0
    let busiest = { from: 0, count: 0 }
    for (let end = 0; end < fetches.length; end++) {
      while (fetches[end]!.at - fetches[start]!.at > 60_000) start++
      if (end - start + 1 > busiest.count) busiest = { from: start, count: end - start + 1 }
    }
    if (busiest.count <= POLL_LIMIT_PER_MINUTE) continue
    const first = fetches[busiest.from]!
    const last = fetches[busiest.from + busiest.count - 1]!
    items.push(
      evidence({
        at: first.at,
        requestId: first.requestId,
        objectId: path.slice(path.lastIndexOf('/') + 1),
        note: `GET ${path} ${busiest.count} times in a minute, from ${formatTime(first.at, { seconds: true })} (${first.requestId}) to ${formatTime(last.at, { seconds: true })} (${last.requestId})`,
      }),
    )
  }
  if (items.length === 0) return []
  return [
    {
      check: 'polling',
      severity: 'warning',
      title: `${plural(items.length, 'Checkout Session')} fetched more than ${POLL_LIMIT_PER_MINUTE} times a minute`,
      rule: 'Learn that a payment finished from the checkout_session.succeeded webhook, not by fetching the session again and again.',
      evidence: capped(items),
      fix:
        'Fulfil from the webhook. Where a page must show the result, fetch the session once when the customer comes back (session_id ' +
        'is in the success URL) and, while it is pending, back off (1 s, 2 s, 4 s …) instead of polling.',
    },
  ]
}

function rateLimits(input: DoctorInput): DoctorFinding[] {
  const limited = input.requests.filter((request) => request.status === 429)
  if (limited.length === 0) return []
  const early: DoctorEvidence[] = []
  for (const [index, refusal] of input.requests.entries()) {
    if (refusal.status !== 429 || refusal.retryAfterS === null) continue
    // The next such call in the log, which is in the order calls finished: a retry sent the moment the 429 arrived can
    // finish in the same millisecond of the clock on a busy simulator, so the order, not the time, tells which came next.
    const next = input.requests.find(
      (request, at) => at > index && request.keyId === refusal.keyId && request.method === refusal.method && pathOf(request) === pathOf(refusal),
    )
    if (!next) continue
    const waitedMs = next.at - next.latencyMs - refusal.at
    if (waitedMs + RETRY_AFTER_SLACK_MS >= refusal.retryAfterS * 1000) continue
    early.push(requestEvidence(refusal, `429 on ${refusal.method} ${pathOf(refusal)} with Retry-After: ${refusal.retryAfterS}`))
    early.push(requestEvidence(next, `sent again after ${Math.max(0, Math.round(waitedMs))} ms: ${next.status}`))
  }
  if (early.length > 0) {
    return [
      {
        check: 'retry-after-ignored',
        severity: 'error',
        title: `Retried ${plural(early.length / 2, 'time')} before Retry-After after a 429`,
        rule: 'After a 429, wait the seconds its Retry-After header gives before sending again: an earlier retry is refused again and keeps the key over its limit.',
        evidence: capped(early),
        fix: 'Read Retry-After and wait that long before the retry (BulaClient does, up to 15 s; most HTTP clients\' retry options can).',
      },
    ]
  }
  return [
    {
      check: 'rate-limited',
      severity: 'warning',
      title: `Rate limited ${plural(limited.length, 'time')}; Retry-After was honoured`,
      rule: 'Checkout Session creation is limited per key and minute (secret key 10,000, publishable key 120): staying under it keeps checkout open.',
      evidence: capped(limited.map((request) => requestEvidence(request, `429 on ${request.method} ${pathOf(request)}, Retry-After: ${request.retryAfterS ?? '-'}`))),
      fix: 'Create sessions from your server with the secret key, spread bulk creation out, and keep waiting Retry-After on a 429.',
    },
  ]
}

const VERIFICATION_FIX: Record<VerificationStatus, string> = {
  unverified: 'Submit verification: `bula verify submit --tin … --tin-card-photo card.png --business-registration registration.png` (`--personal-id` on an individual account), or from Settings in the dashboard.',
  pending: 'Wait for the review (in the simulator, `bula verify approve` plays the reviewer).',
  rejected: 'Read the reason (`bula verify status`) and submit again with the documents fixed.',
  approved: '',
}

function liveReadiness(input: DoctorInput): DoctorFinding[] {
  const findings: DoctorFinding[] = []
  const { account } = input
  if (account.verification !== 'approved') {
    findings.push({
      check: 'live-verification',
      severity: 'warning',
      title: `Live mode is locked: verification is ${account.verification}`,
      rule: 'Live keys and live payments need an approved verification (a TIN and its card photo, and business registration or a personal ID).',
      evidence: [evidence({ note: `Verification status: ${account.verification}` })],
      fix: VERIFICATION_FIX[account.verification],
    })
  }
  if (!account.hasPayoutDestination) {
    findings.push({
      check: 'live-payout-destination',
      severity: 'warning',
      title: 'No payout destination: live earnings would have nowhere to go',
      rule:
        'Payouts sweep the live balance to the payout destination on the payout schedule; without one, each live Payout\'s ' +
        'transfer fails (disbursement.failed, "No payout destination is set in Settings.") and its amount returns to the balance.',
      evidence: [evidence({ note: 'Settings: payoutDestination is not set' })],
      fix: 'Set it: `bula settings set --payout-destination-bank "BSP:Kai Store Ltd:12345678"` (business) or `--payout-destination-wallet mpaisa:+679…` (individual); with a live key once you have one.',
    })
  }
  if (!account.receiptsEnabled) {
    findings.push({
      check: 'live-receipts-off',
      severity: 'warning',
      title: 'Receipts are off: live customers get no e-mail receipt',
      rule: 'In live mode the service e-mails a receipt for each payment with a customer e-mail, unless receipts are off in Settings.',
      evidence: [evidence({ note: 'Settings: receiptsEnabled is false' })],
      fix: 'Turn them on (`bula settings set --receipts`), unless you send your own receipts.',
    })
  }
  const refused = new Map<string, DoctorEvidence>()
  for (const endpoint of input.endpoints) {
    if (!isAllowedUrl(endpoint.url, 'live', [])) refused.set(endpoint.url, evidence({ at: endpoint.createdAt, objectId: endpoint.id, note: `${endpoint.url}: webhook endpoint ${endpoint.id}` }))
  }
  for (const session of input.sessions) {
    for (const [field, url] of [['successUrl', session.successUrl], ['cancelUrl', session.cancelUrl]] as const) {
      if (url !== null && !refused.has(url) && !isAllowedUrl(url, 'live', [])) {
        refused.set(url, evidence({ at: session.createdAt, objectId: session.id, note: `${url}: ${field} of Checkout Session ${session.id}` }))
      }
    }
  }
  if (refused.size > 0) {
    findings.push({
      check: 'live-http-urls',
      severity: 'warning',
      title: `${plural(refused.size, 'URL')} that live mode would refuse (HTTPS only)`,
      rule: 'Live mode takes HTTPS URLs only. http:// works in test mode alone, on localhost and the names given to `bula serve --allowed-host`.',
      evidence: capped([...refused.values()]),
      fix: 'Configure HTTPS addresses for live: the success and cancel URLs your server sends, and the webhook endpoint you register with the live key.',
    })
  }
  return findings
}

/** Every check, in the order a report lists them within a severity. */
const CHECKS: readonly ((input: DoctorInput) => DoctorFinding[])[] = [
  createsRetriedWithNewKey,
  keysReusedForOtherRequests,
  webhookAnswers,
  unverifiedEndpoints,
  sessionsWithoutEndpoint,
  polling,
  rateLimits,
  liveReadiness,
]

/** The report: every finding, errors first. */
export function diagnose(input: DoctorInput): DoctorReport {
  const findings = CHECKS.flatMap((check) => check(input))
  const sorted = [...findings.filter((finding) => finding.severity === 'error'), ...findings.filter((finding) => finding.severity === 'warning')]
  return {
    mode: input.mode,
    now: input.now,
    since: input.since,
    checked: {
      requests: input.requests.length,
      bulaCliRequests: input.bulaCliRequests,
      events: input.eventCount,
      deliveries: input.deliveries.length,
      checkoutSessions: input.sessions.length,
      webhookEndpoints: input.endpoints.length,
    },
    findings: sorted,
    errors: sorted.length - sorted.filter((finding) => finding.severity === 'warning').length,
    warnings: sorted.filter((finding) => finding.severity === 'warning').length,
  }
}
