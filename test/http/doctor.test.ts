import { beforeAll, describe, expect, it } from 'vitest'
import { POLL_LIMIT_PER_MINUTE } from '../../server/domain/doctor.js'
import { client, endpointsActive, signupMerchant, unlockLive, useTestServer, withTestServer } from '../helpers/http.js'
import { idempotent, SAMPLE_INVOICE } from '../helpers/invoices.js'
import { useReceivers, type Receiver } from '../helpers/receiver.js'

// `GET /_sim/doctor` (docs/faults-and-doctor.md): each check is shown the
// behaviour it is about and must find it, and is shown the correct
// behaviour and must find nothing.

const server = useTestServer()
let base: string
beforeAll(() => {
  base = server().baseUrl
})
const receiver = useReceivers()

interface Finding {
  check: string
  severity: 'error' | 'warning'
  title: string
  rule: string
  fix: string
  evidence: { at: number | null; requestId: string | null; eventId: string | null; objectId: string | null; note: string }[]
}

const ORDER = { amount: 4550, currency: 'FJD', metadata: { order: '1042' } }

async function merchant(serverBase = base) {
  const { keys } = await signupMerchant(serverBase)
  const api = client(serverBase, keys.secret)
  const create = (key: string, body: unknown = ORDER) => api.post('/v1/checkout-sessions', body, { headers: { 'idempotency-key': key } })
  const doctor = async (query = '') => {
    const report = await api.get(`/_sim/doctor${query}`)
    expect(report.status, JSON.stringify(report.body)).toBe(200)
    return report.body as { findings: Finding[]; errors: number; warnings: number; checked: Record<string, number>; since: number | null; now: number }
  }
  const finding = async (check: string) => (await doctor()).findings.find((found) => found.check === check)
  /** A raw create whose connection an API fault may close: a real client sees a socket error. */
  const rawCreate = async (key: string) => {
    try {
      return (await fetch(`${serverBase}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(ORDER),
      })).status
    } catch {
      return 'dropped'
    }
  }
  const pay = async (id: string, outcome = 'succeeded') => expect((await api.post(`/_sim/checkout-sessions/${id}/pay`, { outcome })).status).toBe(200)
  return { keys, api, create, rawCreate, doctor, finding, pay }
}

/** A merchant with an endpoint at `r`, verified (or not, as `r` answers), and a paid session: the deliveries the checks read. */
async function withEndpoint(r: Receiver, serverBase = base) {
  const shop = await merchant(serverBase)
  expect((await shop.api.post('/v1/webhook-endpoints', { url: r.url })).status).toBe(200)
  await r.waitFor(1)
  // The endpoint is active once the simulator has read the receiver's answer, a moment after the receiver
  // saw the request: wait for the attempt to be recorded, or a payment made now would skip the endpoint.
  await deliveriesAttempted(shop.api, 'webhook.verified')
  return shop
}

/** Waits until every delivery of the merchant's events has had `attempts` attempts. */
async function deliveriesAttempted(api: ReturnType<typeof client>, type: string) {
  await expect
    .poll(async () => {
      const [event] = (await api.get(`/_sim/events?type=${type}`)).body.data
      if (!event) return 0
      return (await api.get(`/_sim/events/${event.event_id}`)).body.deliveries.flatMap((delivery: { attempts: unknown[] }) => delivery.attempts).length
    }, { timeout: 15_000 })
    .toBeGreaterThan(0)
}

describe('a create retried with a new Idempotency-Key', () => {
  it('is an error naming both requests and both sessions when the lost answer made a duplicate', async () => {
    const shop = await merchant()
    await shop.api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'lose_response' })
    expect(await shop.rawCreate('attempt-1')).toBe('dropped')
    expect(await shop.rawCreate('attempt-2')).toBe(201)
    const sessions = (await shop.api.get('/v1/checkout-sessions')).body.data.map((session: { id: string }) => session.id)
    expect(sessions).toHaveLength(2)
    const found = (await shop.finding('create-retried-with-new-key'))!
    expect(found).toMatchObject({ severity: 'error', title: '1 create retried with a new Idempotency-Key: 1 duplicate Checkout Session made' })
    expect(found.evidence.map((item) => item.objectId).sort()).toEqual([...sessions].sort())
    expect(found.evidence[0]!.note).toContain('with key attempt-1: 201')
    expect(found.evidence[0]!.note).toContain('the answer was lost (fault lose_response)')
    expect(found.evidence.every((item) => item.requestId?.startsWith('req_') && typeof item.at === 'number')).toBe(true)
    expect(found.fix).toContain('send it on every retry')
  })

  it('knows the same body with its fields in another order for the same request', async () => {
    const shop = await merchant()
    expect((await shop.create('attempt-1')).status).toBe(201)
    expect((await shop.create('attempt-2', { metadata: { order: '1042' }, currency: 'FJD', amount: 4550 })).status).toBe(201)
    expect(await shop.finding('create-retried-with-new-key')).toMatchObject({ severity: 'error' })
  })

  it('is an error even when the first attempt made nothing (a reset): the next lost answer would', async () => {
    const shop = await merchant()
    await shop.api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'reset' })
    expect(await shop.rawCreate('attempt-1')).toBe('dropped')
    expect(await shop.rawCreate('attempt-2')).toBe(201)
    expect(await shop.finding('create-retried-with-new-key')).toMatchObject({ severity: 'error', title: expect.stringContaining('no duplicate this time') })
  })

  it('is nothing when the retry sends the same key, when the bodies differ, or when a minute has passed', async () => {
    const shop = await merchant()
    await shop.api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'lose_response' })
    expect(await shop.rawCreate('order-1042')).toBe('dropped')
    expect(await shop.rawCreate('order-1042')).toBe(201)
    expect((await shop.create('order-1043', { ...ORDER, metadata: { order: '1043' } })).status).toBe(201)
    await shop.api.post('/_sim/clock/advance', { ms: 61_000 })
    expect((await shop.create('order-1042-again')).status).toBe(201)
    expect(await shop.finding('create-retried-with-new-key')).toBeUndefined()
  })

  it('is nothing for the bula CLI\'s own commands (`bula trigger` twice is two creates on purpose), and found for any other client', async () => {
    const shop = await merchant()
    const fromCli = { 'user-agent': 'bula-tools/0.1.0 linux-x64 node-v24.11.0' }
    for (const key of ['cli-1', 'cli-2']) expect((await shop.api.post('/v1/checkout-sessions', ORDER, { headers: { 'idempotency-key': key, ...fromCli } })).status).toBe(201)
    expect(await shop.finding('create-retried-with-new-key')).toBeUndefined()
    // The request log still shows them, as `bula logs tail` does.
    expect((await shop.api.get('/_sim/logs?path=/v1/checkout-sessions')).body.data).toHaveLength(2)
    for (const key of ['app-1', 'app-2']) expect((await shop.create(key)).status).toBe(201)
    expect(await shop.finding('create-retried-with-new-key')).toMatchObject({ severity: 'error', title: expect.stringContaining('1 duplicate Checkout Session made') })
  })
})

describe('an Idempotency-Key reused for another request', () => {
  it('is an error, whether the service refused it (409) or answered the first result', async () => {
    const shop = await merchant()
    expect((await shop.create('cart-7')).status).toBe(201)
    expect((await shop.create('cart-7', { ...ORDER, amount: 9900 })).status).toBe(409)
    const replayed = await shop.create('cart-7', { ...ORDER, metadata: { order: '1050' } })
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    const found = (await shop.finding('idempotency-key-reused'))!
    expect(found).toMatchObject({ severity: 'error', title: '1 Idempotency-Key reused for a different request' })
    expect(found.evidence.map((item) => item.note)).toEqual([
      expect.stringContaining('Key cart-7 first used: POST /v1/checkout-sessions with key cart-7: 201'),
      expect.stringContaining('409 idempotency_key_reused'),
      expect.stringContaining("this request's own changes were never made"),
    ])
  })

  it('is nothing for a replay of the same request, or a corrected body after a 400', async () => {
    const shop = await merchant()
    expect((await shop.create('order-1', { ...ORDER, amount: 0 })).status).toBe(400)
    expect((await shop.create('order-1')).status).toBe(201)
    expect((await shop.create('order-1')).headers.get('idempotent-replayed')).toBe('true')
    expect(await shop.finding('idempotency-key-reused')).toBeUndefined()
  })
})

describe('webhook endpoints', () => {
  it('that answer other than 2xx: an error with the event ids', async () => {
    const r = await receiver()
    r.respondWith((request) => (JSON.parse(request.body).type === 'webhook.verified' ? 200 : 500))
    const shop = await withEndpoint(r)
    const session = (await shop.create('order-1')).body
    await shop.pay(session.id)
    await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
    const found = (await shop.finding('webhook-error-status'))!
    expect(found.severity).toBe('error')
    expect(found.title).toContain(r.url)
    expect(found.fix).toMatch(/^Answer 2xx for each event whose signature verifies/)
    const succeeded = (await shop.api.get('/_sim/events?type=checkout_session.succeeded')).body.data[0].event_id
    expect(found.evidence).toContainEqual(expect.objectContaining({ eventId: succeeded, note: expect.stringContaining('HTTP 500') }))
  })

  // Found by a newcomer's pass: a receiver holding bula listen's secret refused every delivery "no signature matches",
  // and doctor told it to answer 2xx, as if the receiver were wrong to refuse.
  it('that refuse on the signature: says the receiver probably has another secret than the endpoint\'s', async () => {
    const r = await receiver()
    r.respondWith((request) => (JSON.parse(request.body).type === 'webhook.verified' ? 200 : { status: 400, body: '{"error": "no signature matches"}' }))
    const shop = await withEndpoint(r)
    await shop.pay((await shop.create('order-1')).body.id)
    await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
    const found = (await shop.finding('webhook-error-status'))!
    expect(found.fix).toMatch(/^\d+ answers speak of the signature: the receiver probably verifies with another secret than this endpoint's/)
    expect(found.fix).toContain('`bula webhooks create` or `bula webhooks rotate`')
  })

  it('that cannot be reached: an error', async () => {
    const r = await receiver()
    const shop = await withEndpoint(r)
    await endpointsActive(shop.api)
    await r.close()
    await shop.pay((await shop.create('order-1')).body.id)
    await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
    expect(await shop.finding('webhook-no-answer')).toMatchObject({ severity: 'error', evidence: expect.arrayContaining([expect.objectContaining({ note: expect.stringContaining('ECONNREFUSED') })]) })
  })

  it('that time out: an error', async () => {
    const r = await receiver()
    r.respondWith((request) => (JSON.parse(request.body).type === 'webhook.verified' ? 200 : { status: 200, afterMs: 1_000 }))
    await withTestServer({ webhookTimeoutMs: 300 }, async (running) => {
      const shop = await withEndpoint(r, running.baseUrl)
      await shop.pay((await shop.create('order-1')).body.id)
      await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
      expect(await shop.finding('webhook-no-answer')).toMatchObject({ evidence: expect.arrayContaining([expect.objectContaining({ note: expect.stringMatching(/timed out after 300 ms$/) })]) })
      expect(await shop.finding('webhook-slow')).toBeUndefined()
    })
  })

  it('that take over 5 s: a warning', { timeout: 30_000 }, async () => {
    const r = await receiver()
    r.respondWith((request) => (JSON.parse(request.body).type === 'checkout_session.succeeded' ? { status: 200, afterMs: 5_300 } : 200))
    const shop = await withEndpoint(r)
    await shop.pay((await shop.create('order-1')).body.id)
    await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
    const report = await shop.doctor()
    expect(report.findings.find((found) => found.check === 'webhook-slow')).toMatchObject({ severity: 'warning', evidence: [expect.objectContaining({ note: expect.stringMatching(/HTTP 200 after 5[0-9]{3} ms/) })] })
    expect(report.findings.map((found) => found.check)).not.toContain('webhook-error-status')
  })

  it('that answer 2xx promptly: nothing', async () => {
    const r = await receiver()
    const shop = await withEndpoint(r)
    await shop.pay((await shop.create('order-1')).body.id)
    await deliveriesAttempted(shop.api, 'checkout_session.succeeded')
    const checks = (await shop.doctor()).findings.map((found) => found.check)
    for (const check of ['webhook-error-status', 'webhook-no-answer', 'webhook-slow', 'webhook-endpoint-unverified', 'no-webhook-endpoint']) expect(checks).not.toContain(check)
  })

  it('never verified: an error naming the endpoint and its answer', async () => {
    const r = await receiver()
    r.respondWith(() => 400)
    const shop = await withEndpoint(r)
    await expect.poll(async () => (await shop.finding('webhook-endpoint-unverified'))?.evidence[0]?.note).toContain('webhook.verified answered HTTP 400')
    const [endpoint] = (await shop.api.get('/v1/webhook-endpoints')).body.data
    expect((await shop.finding('webhook-endpoint-unverified'))!.evidence[0]!.objectId).toBe(endpoint.id)
  })

  it('none registered while sessions are created: an error; none and no sessions: nothing', async () => {
    const shop = await merchant()
    expect(await shop.finding('no-webhook-endpoint')).toBeUndefined()
    const session = (await shop.create('order-1')).body
    expect(await shop.finding('no-webhook-endpoint')).toMatchObject({ severity: 'error', evidence: [expect.objectContaining({ objectId: session.id })] })
  })

  it('none registered, but each session retrieved after it was paid: nothing, as the rule allows', async () => {
    const shop = await merchant()
    const fetched = (await shop.create('order-1')).body
    await shop.pay(fetched.id)
    expect((await shop.api.get(`/v1/checkout-sessions/${fetched.id}`)).body.status).toBe('succeeded')
    expect(await shop.finding('no-webhook-endpoint')).toBeUndefined()
    // A session never retrieved is still left to the redirect, and is the only one named.
    const unchecked = (await shop.create('order-2')).body
    expect(await shop.finding('no-webhook-endpoint')).toMatchObject({ evidence: [expect.objectContaining({ objectId: unchecked.id })] })
  })
})

describe('polling', () => {
  it(`is a warning past ${POLL_LIMIT_PER_MINUTE} fetches of one session in a minute, and nothing at ${POLL_LIMIT_PER_MINUTE}`, async () => {
    const shop = await merchant()
    const session = (await shop.create('order-1')).body
    for (let i = 0; i < POLL_LIMIT_PER_MINUTE; i++) await shop.api.get(`/v1/checkout-sessions/${session.id}`)
    expect(await shop.finding('polling')).toBeUndefined()
    await shop.api.get(`/v1/checkout-sessions/${session.id}`)
    const found = (await shop.finding('polling'))!
    expect(found).toMatchObject({ severity: 'warning', evidence: [expect.objectContaining({ objectId: session.id, note: expect.stringContaining(`${POLL_LIMIT_PER_MINUTE + 1} times in a minute`) })] })
    // Times as the rest of the CLI prints them (Fiji time, then UTC), not ISO strings.
    expect(found.evidence[0]!.note).toMatch(/from \d+ \w+ \d{4}, \d\d:\d\d:\d\d FJT/)
    expect(found.evidence[0]!.note).not.toMatch(/\d{4}-\d\d-\d\dT/)
  })
})

describe('429s and Retry-After', () => {
  /** The publishable key's 120 creates a minute, used up; the next create is the 429. */
  async function rateLimited() {
    const shop = await merchant()
    const browser = client(base, shop.keys.publishable)
    const create = (key: string) => browser.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': key } })
    for (let i = 0; i < 120; i++) expect((await create(`pk-${i}`)).status).toBe(201)
    const refused = await create('pk-120')
    expect(refused.status).toBe(429)
    return { shop, create, retryAfterS: Number(refused.headers.get('retry-after')) }
  }

  it('retried at once: an error', async () => {
    const { shop, create } = await rateLimited()
    expect((await create('pk-120')).status).toBe(429)
    const found = (await shop.finding('retry-after-ignored'))!
    expect(found.severity).toBe('error')
    expect(found.evidence.map((item) => item.note)).toEqual([expect.stringMatching(/^429 on POST \/v1\/checkout-sessions with Retry-After: \d+$/), expect.stringMatching(/^sent again after \d+ ms: 429$/)])
    expect(await shop.finding('rate-limited')).toBeUndefined()
  })

  it('retried after Retry-After: only a warning that the limit was hit', async () => {
    const { shop, create, retryAfterS } = await rateLimited()
    await shop.api.post('/_sim/clock/advance', { ms: retryAfterS * 1000 })
    expect((await create('pk-120')).status).toBe(201)
    expect(await shop.finding('retry-after-ignored')).toBeUndefined()
    expect(await shop.finding('rate-limited')).toMatchObject({ severity: 'warning', title: 'Rate limited 1 time; Retry-After was honoured' })
  })
})

describe('live readiness', () => {
  it('warns of verification, payout destination, receipts and the http URLs live would refuse', async () => {
    const shop = await merchant()
    const r = await receiver()
    await shop.api.post('/v1/webhook-endpoints', { url: r.url })
    await shop.api.patch('/_sim/settings', { receiptsEnabled: false })
    await shop.create('order-1', { ...ORDER, successUrl: 'http://localhost:3000/thanks', cancelUrl: 'https://shop.example/cart' })
    const report = await shop.doctor()
    const byCheck = Object.fromEntries(report.findings.map((found) => [found.check, found]))
    expect(byCheck['live-verification']).toMatchObject({ severity: 'warning', title: 'Live mode is locked: verification is unverified' })
    expect(byCheck['live-payout-destination']).toMatchObject({ severity: 'warning' })
    expect(byCheck['live-receipts-off']).toMatchObject({ severity: 'warning' })
    expect(byCheck['live-http-urls']!.evidence.map((item) => item.note)).toEqual([
      expect.stringContaining(`${r.url}: webhook endpoint we_`),
      expect.stringContaining('http://localhost:3000/thanks: successUrl of Checkout Session cs_'),
    ])
  })

  it('finds nothing for a verified merchant with a payout destination, receipts on and HTTPS URLs', async () => {
    const shop = await merchant()
    const live = await unlockLive(base, shop.keys.secret)
    expect((await client(base, live.secret).patch('/_sim/settings', { payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' } })).status).toBe(200)
    await shop.create('order-1', { ...ORDER, successUrl: 'https://shop.example/thanks', cancelUrl: 'https://shop.example/cart' })
    const checks = (await shop.doctor()).findings.map((found) => found.check)
    expect(checks.filter((check) => check.startsWith('live-'))).toEqual([])
  })
})

describe('objects the integration did not make', () => {
  const fromCli = { 'user-agent': 'bula-tools/0.1.0 linux-x64 node-v24.11.0' }

  it('leaves out sessions the bula CLI created and the session an invoice payment opened; the integration\'s own are still judged', async () => {
    const shop = await merchant()
    // README's first payment, from the CLI: sessions made by a person's commands, not by the integration.
    for (const key of ['cli-1', 'cli-2']) {
      const made = await shop.api.post('/v1/checkout-sessions', { ...ORDER, successUrl: 'http://localhost:3000/thanks' }, { headers: { 'idempotency-key': key, ...fromCli } })
      expect(made.status).toBe(201)
    }
    // An invoice paid through the simulator: its Checkout Session (successUrl the invoice page, http://127.0.0.1…) is the simulator's.
    const invoice = (await shop.api.post('/v1/invoices', SAMPLE_INVOICE, idempotent())).body
    expect((await shop.api.post(`/v1/invoices/${invoice.id}/send`, undefined, idempotent())).status).toBe(200)
    expect((await shop.api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)
    expect((await shop.api.get('/v1/checkout-sessions')).body.data).toHaveLength(3)
    const report = await shop.doctor()
    expect(report.findings.map((found) => found.check)).not.toContain('no-webhook-endpoint')
    expect(report.findings.map((found) => found.check)).not.toContain('live-http-urls')
    expect(report.checked).toMatchObject({ checkoutSessions: 0 })

    const own = (await shop.create('order-1', { ...ORDER, successUrl: 'http://localhost:3000/thanks' })).body
    const after = await shop.doctor()
    const byCheck = Object.fromEntries(after.findings.map((found) => [found.check, found]))
    expect(byCheck['no-webhook-endpoint']).toMatchObject({ severity: 'error', title: expect.stringMatching(/^1 Checkout Session created/), evidence: [expect.objectContaining({ objectId: own.id })] })
    expect(byCheck['live-http-urls']!.evidence).toEqual([expect.objectContaining({ objectId: own.id, note: expect.stringContaining('http://localhost:3000/thanks: successUrl') })])
    expect(after.checked).toMatchObject({ checkoutSessions: 1 })
  })

  it('counts the bula CLI\'s calls it left out, apart from the integration\'s', async () => {
    const shop = await merchant()
    for (const path of ['/v1/checkout-sessions', '/v1/webhook-endpoints', '/_sim/settings']) expect((await shop.api.get(path, { headers: fromCli })).status).toBe(200)
    expect((await shop.api.get('/v1/checkout-sessions')).status).toBe(200)
    expect((await shop.doctor()).checked).toMatchObject({ requests: 1, bulaCliRequests: 3 })
  })
})

describe('the report', () => {
  it('reads only the merchant\'s own traffic of the key\'s mode, in the window asked for', async () => {
    const shop = await merchant()
    const other = await merchant()
    const live = await unlockLive(base, shop.keys.secret)
    await shop.create('attempt-1')
    await shop.create('attempt-2')
    expect(await shop.finding('create-retried-with-new-key')).toBeDefined()
    expect(await other.finding('create-retried-with-new-key')).toBeUndefined()
    const liveReport = (await client(base, live.secret).get('/_sim/doctor')).body
    expect(liveReport.mode).toBe('live')
    expect(liveReport.checked).toMatchObject({ checkoutSessions: 0 })
    expect(liveReport.findings.map((found: Finding) => found.check)).not.toContain('create-retried-with-new-key')
    await shop.api.post('/_sim/clock/advance', { ms: 120_000 })
    const recent = await shop.doctor('?sinceMs=60000')
    expect(recent.since).toBe(recent.now - 60_000)
    expect(recent.findings.map((found) => found.check)).not.toContain('create-retried-with-new-key')
    expect((await shop.api.get('/_sim/doctor?sinceMs=0')).body.error).toMatchObject({
      code: 'invalid_request',
      param: 'sinceMs',
      message: 'Invalid `sinceMs`: sinceMs must be a whole number of 1 or more.',
    })
  })

  it('lists errors before warnings, and counts them', async () => {
    const shop = await merchant()
    await shop.create('attempt-1')
    await shop.create('attempt-2')
    const report = await shop.doctor()
    const severities = report.findings.map((found) => found.severity)
    expect(severities).toEqual([...severities].sort())
    expect(report.errors).toBe(severities.filter((severity) => severity === 'error').length)
    expect(report.warnings).toBe(severities.length - report.errors)
    expect(report.checked).toMatchObject({ checkoutSessions: 2, webhookEndpoints: 0 })
    expect(report.checked.requests).toBeGreaterThanOrEqual(2)
  })
})
