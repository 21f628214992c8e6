import { randomUUID } from 'node:crypto'
import { formatDuration } from '../duration.js'
import { ConformanceClient, type Answer, type RecordedStep } from './http.js'
import type { Delivery, Inbox, Responder, WebhookReceiver } from './receiver.js'

/** A case's check that did not hold. */
export class CaseFailure extends Error {
  override name = 'CaseFailure'
}

/** A case that cannot run against this target, with the reason. */
export class CaseSkip extends Error {
  override name = 'CaseSkip'
}

export type Tier = 'business' | 'individual'

export interface MerchantKeys {
  secret: string
  publishable?: string
  tier: Tier
}

/** What the run found out about the target before the cases. */
export interface Target {
  baseUrl: string
  /** Whether `/_sim` answers. */
  sim: boolean
  /** Whether the target is on this machine (a loopback address). */
  local: boolean
  /** `/api-keys` or `/v1/api-keys`: the spec leaves the prefix open, so the run asks the target. */
  apiKeysPath: string
  webhookEndpointsPath: string
  receiver?: WebhookReceiver
  deliveryTimeoutMs: number
  /** How long one exchange may take: a target that never answers fails the case instead of holding the run. */
  timeoutMs: number
  /** Called with a line per exchange (`--verbose`). */
  log?: (line: string) => void
}

export interface RegisteredEndpoint {
  id: string
  secret: string
  inbox: Inbox
}

/** A PNG of one pixel: the verification stand-in's documents. */
const PIXEL_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

const describe = (answer: Answer): string => {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
  if (error && typeof error === 'object') return `${answer.status} ${String(error.code)} (${String(error.message)})`
  return String(answer.status)
}

/**
 * What a case works with: clients bound to its merchant's keys (each
 * exchange recorded into the case's steps), the simulator's controls when
 * the target has them, the webhook receiver, and the checks that fail it.
 */
export class CaseContext {
  readonly steps: RecordedStep[] = []
  /** The merchant's test secret key. */
  readonly api: ConformanceClient
  /** No key at all. */
  readonly anonymous: ConformanceClient
  readonly sim: SimControls
  readonly webhooks: Webhooks

  constructor(
    readonly target: Target,
    readonly merchant: MerchantKeys,
    /** Signs up another merchant of this tier (only with `/_sim`). */
    private readonly signup: (tier: Tier) => Promise<MerchantKeys>,
  ) {
    this.api = this.as(merchant.secret, 'secret')
    this.anonymous = this.as(undefined, 'none')
    this.sim = new SimControls(this)
    this.webhooks = new Webhooks(this)
  }

  /** The merchant's publishable key. */
  get publishable(): ConformanceClient {
    if (!this.merchant.publishable) throw new CaseSkip('needs a publishable key of the same merchant (--publishable-key)')
    return this.as(this.merchant.publishable, 'publishable')
  }

  /** A client with another key; `label` is how the recording names it. */
  as(key: string | undefined, label: string): ConformanceClient {
    return new ConformanceClient(this.target.baseUrl, key, label, this.steps, (path) => this.route(path), this.target)
  }

  /** Another merchant of its own, through `/_sim` signup. */
  async otherMerchant(tier: Tier = 'business'): Promise<MerchantKeys> {
    this.steps.push({ sim: `sign up another ${tier} merchant` })
    return this.signup(tier)
  }

  private route(path: string): string {
    if (path.startsWith('/api-keys')) return this.target.apiKeysPath + path.slice('/api-keys'.length)
    if (path.startsWith('/webhook-endpoints')) return this.target.webhookEndpointsPath + path.slice('/webhook-endpoints'.length)
    return path
  }

  /** A fresh Idempotency-Key. */
  newKey(): string {
    return `conformance-${randomUUID()}`
  }

  check(condition: unknown, message: string): void {
    if (!condition) throw new CaseFailure(message)
  }

  /** The value, failing the case with the message when there is none. */
  present<T>(value: T | null | undefined, message: string): T {
    if (value === null || value === undefined) throw new CaseFailure(message)
    return value
  }

  fail(message: string): never {
    throw new CaseFailure(message)
  }

  skip(reason: string): never {
    throw new CaseSkip(reason)
  }

  /** The answer has this status; the message names the call and what came back. */
  expectStatus(answer: Answer, status: number, why = ''): void {
    if (answer.status !== status) this.fail(`${answer.what} answered ${describe(answer)}, expected ${status}${why ? ` (${why})` : ''}`)
  }

  /** The answer is an error envelope with this code, and this status unless the spec leaves it open (`undefined`). */
  expectError(answer: Answer, status: number | undefined, code: string, why = ''): void {
    const expected = `${status ?? 'an error'} ${code}${why ? ` (${why})` : ''}`
    if (status !== undefined ? answer.status !== status : answer.status < 400) this.fail(`${answer.what} answered ${describe(answer)}, expected ${expected}`)
    this.expectEnvelope(answer)
    const error = (answer.body as { error: { code: string } }).error
    if (error.code !== code) this.fail(`${answer.what} answered ${describe(answer)}, expected ${expected}`)
  }

  /** The answer's body is `{error: {code, message}}` with string code and message. */
  expectEnvelope(answer: Answer): void {
    const error = (answer.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
      this.fail(`${answer.what} answered ${answer.status} without the error envelope {error: {code, message}}: ${answer.text.slice(0, 200)}`)
    }
  }

  /** The JSON body of a 2xx answer of this status, typed as the case expects it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a case reads the fields it checks
  ok(answer: Answer, status = 200): any {
    this.expectStatus(answer, status)
    this.check(answer.body !== undefined, `${answer.what} answered ${answer.status} without a JSON body`)
    return answer.body
  }
}

/** The simulator's `/_sim` controls, with the case's key. Each use is a step of the recording. */
export class SimControls {
  constructor(private readonly t: CaseContext) {}

  private client(key = this.t.merchant.secret): ConformanceClient {
    return new ConformanceClient(this.t.target.baseUrl, key, 'secret', undefined, undefined, this.t.target)
  }

  private need(): void {
    if (!this.t.target.sim) throw new CaseSkip('needs the simulator\'s /_sim controls')
  }

  /** A `/_sim` call whose answer the case judges itself; `step` says what it does in the recording. */
  async request(step: string, method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
    this.need()
    this.t.steps.push({ sim: step })
    return this.client(key).call(method, path, { body, record: false })
  }

  private async control(step: string, method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
    const answer = await this.request(step, method, path, body, key)
    if (answer.status >= 300) this.t.fail(`the simulator's ${method} ${path} answered ${describe(answer)}`)
    return answer
  }

  /** The merchant's clock, Unix ms. */
  async now(): Promise<number> {
    this.need()
    const answer = await this.client().get('/_sim/clock', { record: false })
    return (answer.body as { now: number }).now
  }

  /** Moves the merchant's clock forward, running everything that falls due. */
  async advance(ms: number): Promise<void> {
    await this.control(`advance the clock ${formatDuration(ms)}`, 'POST', '/_sim/clock/advance', { ms })
  }

  /** Moves the merchant's clock to this time. */
  async advanceTo(to: number, what: string): Promise<void> {
    await this.control(`advance the clock to ${what}`, 'POST', '/_sim/clock/advance', { to })
  }

  /** The customer pays a session (`processing` holds the payment there). */
  async pay(sessionId: string, outcome: 'succeeded' | 'failed' | 'processing', key?: string): Promise<void> {
    await this.control(`the customer pays: ${outcome}`, 'POST', `/_sim/checkout-sessions/${encodeURIComponent(sessionId)}/pay`, { outcome }, key)
  }

  /** The customer pays a sent Invoice on its page. */
  async payInvoice(invoiceId: number, outcome: 'succeeded' | 'failed' | 'processing'): Promise<void> {
    await this.control(`the customer pays the invoice: ${outcome}`, 'POST', `/_sim/invoices/${invoiceId}/pay`, { outcome })
  }

  /** Changes dashboard settings. */
  async settings(changes: Record<string, unknown>, key?: string): Promise<void> {
    await this.control(`settings: ${Object.keys(changes).join(', ')}`, 'PATCH', '/_sim/settings', changes, key)
  }

  /** Sets the quote rates (FJD per unit). */
  async rates(rates: { USD?: string; AUD?: string }): Promise<void> {
    await this.control(`quote rates: ${JSON.stringify(rates)}`, 'PUT', '/_sim/rates', rates)
  }

  /** Verification submitted and approved: the first live key pair. */
  async unlockLive(): Promise<{ secret: string; publishable: string }> {
    const document = this.t.merchant.tier === 'business' ? { businessRegistration: PIXEL_PNG } : { personalId: PIXEL_PNG }
    await this.control('submit verification', 'POST', '/_sim/verification', { tin: '123456789', tinCardPhoto: PIXEL_PNG, ...document })
    const approved = await this.control('approve verification: live keys', 'POST', '/_sim/verification/approve')
    return (approved.body as { keys: { secret: string; publishable: string } }).keys
  }

  /** The next live transfer fails with this reason. */
  async failNextPayout(reason: string, key: string): Promise<void> {
    await this.control('the next live transfer fails', 'POST', '/_sim/payouts/fail-next', { reason }, key)
  }

  /** The outbox of the key's mode (what the service would have e-mailed), newest first. */
  async emails(key?: string): Promise<{ to: string; subject: string; text: string }[]> {
    const answer = await this.request('read the outbox', 'GET', '/_sim/emails', undefined, key)
    return (answer.body as { data: { to: string; subject: string; text: string }[] }).data
  }

  /** The merchant's events of the key's mode, newest first. */
  async events(type?: string, key?: string): Promise<{ id: string; type: string; data: { object: Record<string, unknown> } }[]> {
    this.need()
    const answer = await this.client(key).get(`/_sim/events?limit=100${type ? `&type=${type}` : ''}`, { record: false })
    return (answer.body as { data: { id: string; type: string; data: { object: Record<string, unknown> } }[] }).data
  }
}

/** The webhook receiver as a case uses it: register an endpoint, wait for deliveries. */
export class Webhooks {
  constructor(private readonly t: CaseContext) {}

  private receiver(): WebhookReceiver {
    const { receiver } = this.t.target
    if (!receiver) throw new CaseSkip('needs a webhook receiver the target can reach: give --webhook-url, a public URL that forwards to --webhook-port')
    return receiver
  }

  /**
   * Registers an endpoint at a new inbox of the receiver and, unless
   * `verify: false`, waits until it has answered `webhook.verified` and the
   * target counts it active.
   */
  async register(options: { respond?: Responder; verify?: boolean; client?: ConformanceClient } = {}): Promise<RegisteredEndpoint> {
    const inbox = this.receiver().inbox()
    if (options.respond) inbox.respond = options.respond
    const client = options.client ?? this.t.api
    const endpoint = this.t.ok(await client.post('/webhook-endpoints', { url: inbox.url })).endpoint as { id: string; secret: string }
    this.t.check(typeof endpoint?.id === 'string' && typeof endpoint.secret === 'string', 'POST /webhook-endpoints answered without endpoint.id and endpoint.secret')
    if (options.verify !== false) {
      const verified = await this.next(inbox, 'webhook.verified', { record: false })
      this.t.check(verified.answered < 300, 'the receiver refused webhook.verified, so the endpoint cannot become active')
      await this.settle(client, endpoint.id)
    }
    return { id: endpoint.id, secret: endpoint.secret, inbox }
  }

  /**
   * Waits until the target shows the endpoint active (the simulator's list
   * says `status`); a target whose list does not say gets a moment to record
   * the receiver's answer.
   */
  private async settle(client: ConformanceClient, endpointId: string): Promise<void> {
    const deadline = performance.now() + this.t.target.deliveryTimeoutMs
    while (performance.now() < deadline) {
      const list = await client.get('/webhook-endpoints', { record: false })
      const found = ((list.body as { data?: { id: string; status?: string }[] } | undefined)?.data ?? []).find((item) => item.id === endpointId)
      if (found?.status === 'active') return
      if (found && found.status === undefined) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }

  /** The next delivery of this event type (and matching `where`), recorded unless asked not to; fails when none comes in time. */
  async next(inbox: Inbox, type: string, options: { where?: (delivery: Delivery) => boolean; from?: number; record?: boolean; timeoutMs?: number } = {}): Promise<Delivery> {
    const delivery = await inbox.find(
      (candidate) => candidate.payload?.type === type && (options.where?.(candidate) ?? true),
      options.timeoutMs ?? this.t.target.deliveryTimeoutMs,
      options.from,
    )
    if (!delivery) this.t.fail(`no ${type} delivery reached the receiver within ${formatDuration(options.timeoutMs ?? this.t.target.deliveryTimeoutMs)}`)
    if (options.record !== false) this.record(delivery)
    return delivery
  }

  /** Puts a delivery into the recording: the spec's three headers and the payload. */
  record(delivery: Delivery): void {
    const headers: Record<string, string> = {}
    for (const name of ['content-type', 'service-signature', 'service-timestamp', 'x-service-event-id']) {
      if (delivery.headers[name] !== undefined) headers[name] = delivery.headers[name]!
    }
    this.t.steps.push({ delivery: { headers, body: delivery.payload ?? delivery.rawBody } })
  }
}
