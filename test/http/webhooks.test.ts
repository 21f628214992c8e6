import { createHmac } from 'node:crypto'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { RETRY_DELAYS_MS } from '../../server/domain/webhook-endpoint.js'
import { verifyWebhook } from '../../src/webhooks/signature.js'
import { DAY, HOUR, client, endpointsActive, signupMerchant, useTestServer, withTestServer, unlockLive } from '../helpers/http.js'
import { startReceiverOnBlockedPort, useReceivers, type ReceivedRequest } from '../helpers/receiver.js'
import { tempFolder } from '../helpers/temp.js'

let base: string

const server = useTestServer({ webhookTimeoutMs: 2000 })
beforeAll(async () => {
  base = server().baseUrl
})

const receiver = useReceivers()

/** The standard HMAC, computed here independently of the simulator's code. */
const hmac = (secret: string, request: ReceivedRequest) =>
  createHmac('sha256', secret).update(`${request.headers['service-timestamp']}.${request.body}`).digest('hex')

let keyCounter = 0
async function setup(serverBase = base) {
  const { keys } = await signupMerchant(serverBase)
  const api = client(serverBase, keys.secret)
  const r = await receiver()
  const registered = await api.post('/v1/webhook-endpoints', { url: r.url })
  expect(registered.status).toBe(200)
  await r.waitFor(1)
  await endpointsActive(api)
  const paidSession = async (outcome = 'succeeded') => {
    const session = (
      await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD', metadata: { order: '7' } }, { headers: { 'idempotency-key': `k${++keyCounter}` } })
    ).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome })
    return session
  }
  /** Moves the merchant's clock on, pays a new session, and returns the receiver's `count`th request (its last event). */
  const paidAfter = async (ms: number, count: number) => {
    await api.post('/_sim/clock/advance', { ms })
    await paidSession()
    return (await r.waitFor(count))[count - 1]!
  }
  return { keys, api, receiver: r, endpoint: registered.body.endpoint, paidSession, paidAfter }
}

describe('webhook endpoints', () => {
  it('registers with a whsec_ secret shown once, verifies with webhook.verified, then is active', async () => {
    const { api, receiver: r, endpoint } = await setup()
    expect(endpoint.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/)
    expect(endpoint).toMatchObject({ url: r.url, mode: 'test' })
    const [verification] = r.requests
    const payload = JSON.parse(verification!.body)
    expect(payload).toMatchObject({ type: 'webhook.verified', mode: 'test', data: { object: { id: endpoint.id, url: r.url } } })
    expect(verification!.headers['service-signature']).toBe(`v1=${hmac(endpoint.secret, verification!)}`)
    // The 2xx makes it active.
    await expect.poll(async () => (await api.get('/v1/webhook-endpoints')).body.data[0].status).toBe('active')
    const listed = await api.get('/webhook-endpoints')
    expect(listed.body.data).toEqual([expect.objectContaining({ id: endpoint.id, url: r.url, status: 'active' })])
    expect(JSON.stringify(listed.body)).not.toContain('whsec_')
  })

  it('refuses a URL with a user name or password, which no delivery could ever use, or with a space inside, which would be kept as typed', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    for (const url of ['https://user:pw@example.com/hooks', 'http://user@127.0.0.1:9/hooks', 'https://@example.com/hooks', 'https://:@example.com/hooks', 'http://localhost:1/a b', 'https://shop.example/my hooks']) {
      const refused = await api.post('/v1/webhook-endpoints', { url })
      expect([url, refused.status, refused.body.error?.param]).toEqual([url, 400, 'url'])
      expect(JSON.stringify(refused.body)).not.toContain('pw@')
    }
    expect((await api.get('/webhook-endpoints')).body.data).toEqual([])
  })

  it('skips an endpoint that never answered webhook.verified with a 2xx', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const r = await receiver()
    r.respondWith(() => 500)
    await api.post('/webhook-endpoints', { url: r.url })
    await r.waitFor(1)
    expect((await api.get('/webhook-endpoints')).body.data[0].status).toBe('pending')
    const session = (await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': 'a' } })).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(r.requests.map((q) => JSON.parse(q.body).type)).toEqual(['webhook.verified'])
  })

  it.each([
    ['test', 'ftp://example.test/hook', 'url'],
    ['test', 'http://example.test/hook', 'url'],
    ['test', 'not a url', 'url'],
    ['live', 'http://127.0.0.1:9/hook', 'url'],
  ])('refuses a %s-mode URL %s', async (mode, url, param) => {
    const { keys } = await signupMerchant(base)
    const key = mode === 'live' ? (await unlockLive(base, keys.secret)).secret : keys.secret
    const response = await client(base, key).post('/v1/webhook-endpoints', { url })
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe(param)
  })

  it('hides endpoints of other merchants (404)', async () => {
    const { endpoint } = await setup()
    const other = client(base, (await signupMerchant(base)).keys.secret)
    expect((await other.delete(`/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404)
    expect((await other.post(`/v1/webhook-endpoints/${endpoint.id}/rotate`)).status).toBe(404)
  })
})

describe('delivery', () => {
  it('sends every event of a paid session, signed per the spec', async () => {
    const { receiver: r, endpoint, paidSession } = await setup()
    const session = await paidSession()
    const requests = (await r.waitFor(4)).slice(1)
    expect(requests.map((q) => JSON.parse(q.body).type)).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
    for (const request of requests) {
      expect(request.method).toBe('POST')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['service-signature']).toBe(`v1=${hmac(endpoint.secret, request)}`)
      const timestamp = Number(request.headers['service-timestamp'])
      expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(10)
      const payload = verifyWebhook<{ event_id: string }>(request.body, request.headers as Record<string, string>, endpoint.secret)
      expect(request.headers['x-service-event-id']).toBe(payload.event_id)
      expect(Object.keys(payload).sort()).toEqual(['createdAt', 'data', 'event_id', 'mode', 'type'])
    }
    const succeeded = JSON.parse(requests[2]!.body)
    expect(succeeded.data.object).toMatchObject({ id: session.id, status: 'succeeded', metadata: { order: '7' }, mode: 'test' })
  })

  it('retries on the merchant clock with the same event id until a 2xx, logging each attempt', async () => {
    const { api, receiver: r, paidSession } = await setup()
    // Fail the first three tries of the checkout_session.succeeded delivery.
    let failures = 0
    r.respondWith((request) => (JSON.parse(request.body).type === 'checkout_session.succeeded' && failures++ < 3 ? 503 : 200))
    await paidSession()
    await r.waitFor(4)
    const eventId = JSON.parse(r.requests[3]!.body).event_id
    // Real time does not reach the first retry (1 minute); the clock does.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(r.requests).toHaveLength(4)
    const advanced = await api.post('/_sim/clock/advance', { ms: RETRY_DELAYS_MS[0] + RETRY_DELAYS_MS[1] + RETRY_DELAYS_MS[2] + 1000 })
    expect(advanced.body.ran.filter((a: { kind: string }) => a.kind === 'webhook.deliver')).toHaveLength(3)
    const tries = r.requests.filter((q) => q.headers['x-service-event-id'] === eventId)
    expect(tries).toHaveLength(4)
    expect(new Set(tries.map((q) => JSON.parse(q.body).event_id))).toEqual(new Set([eventId]))
    // After the 2xx no more attempts come, however far the clock goes.
    await api.post('/_sim/clock/advance', { ms: 4 * DAY })
    expect(r.requests.filter((q) => q.headers['x-service-event-id'] === eventId)).toHaveLength(4)

    const detail = await api.get(`/_sim/events/${eventId}`)
    expect(detail.body.event.event_id).toBe(eventId)
    const [delivery] = detail.body.deliveries
    expect(delivery.status).toBe('succeeded')
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([503, 503, 503, 200])
    expect(delivery.attempts[1].at - delivery.attempts[0].at).toBe(RETRY_DELAYS_MS[0])
    expect(delivery.attempts[0]).toMatchObject({ response: 'receiver says no', error: null })
    expect(typeof delivery.attempts[0].latencyMs).toBe('number')
  })

  it('gives up after the whole schedule, and records a refused connection', async () => {
    const { api, receiver: r, paidSession } = await setup()
    await paidSession('failed')
    await r.waitFor(4)
    const eventId = JSON.parse(r.requests[3]!.body).event_id
    await r.close()
    await api.post('/v1/checkout-sessions', { amount: 1, currency: 'FJD' }, { headers: { 'idempotency-key': 'z' } })
    const resent = await api.post(`/_sim/events/${eventId}/resend`)
    expect(resent.status).toBe(200)
    expect(resent.body.deliveries).toHaveLength(1)
    await api.post('/_sim/clock/advance', { ms: 4 * DAY })
    const delivery = (await api.get(`/_sim/events/${eventId}`)).body.deliveries.find((d: { id: string }) => d.id === resent.body.deliveries[0].id)
    expect(delivery.status).toBe('failed')
    expect(delivery.attempts).toHaveLength(RETRY_DELAYS_MS.length + 1)
    expect(delivery.attempts[0]).toMatchObject({ status: null, error: 'ECONNREFUSED' })
    expect(delivery.nextAttemptAt).toBeNull()
  })

  it('resends an event with the same id', async () => {
    const { api, receiver: r, paidSession } = await setup()
    await paidSession()
    await r.waitFor(4)
    const original = JSON.parse(r.requests[3]!.body)
    await api.post(`/_sim/events/${original.event_id}/resend`)
    const [again] = (await r.waitFor(5)).slice(4)
    expect(JSON.parse(again!.body)).toEqual(original)
  })

  it('resends an event other than webhook.verified to active endpoints only, as the first delivery', async () => {
    const { api, receiver: r, paidSession } = await setup()
    await paidSession()
    const [, , , succeeded] = await r.waitFor(4)
    const eventId = JSON.parse(succeeded!.body).event_id
    const unverified = await receiver()
    unverified.respondWith(() => 500)
    const pending = (await api.post('/v1/webhook-endpoints', { url: unverified.url })).body.endpoint
    await unverified.waitFor(1)
    const refused = await api.post(`/_sim/events/${eventId}/resend`, { endpointId: pending.id })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('invalid_state')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(unverified.requests.map((q) => JSON.parse(q.body).type)).toEqual(['webhook.verified'])
  })

  it('resends webhook.verified only to the endpoint it verifies', async () => {
    const { api, receiver: r, endpoint } = await setup()
    const verificationId = JSON.parse(r.requests[0]!.body).event_id
    const other = await receiver()
    const second = (await api.post('/v1/webhook-endpoints', { url: other.url })).body.endpoint
    await other.waitFor(1)
    await endpointsActive(api)
    const resent = await api.post(`/_sim/events/${verificationId}/resend`)
    expect(resent.body.deliveries.map((d: { endpointId: string }) => d.endpointId)).toEqual([endpoint.id])
    const misdirected = await api.post(`/_sim/events/${verificationId}/resend`, { endpointId: second.id })
    expect(misdirected.status).toBe(400)
    expect(misdirected.body.error.param).toBe('endpointId')
    await r.waitFor(2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(other.requests).toHaveLength(1)
  })

  it('rotation signs with both secrets for 72 hours, then only the new one', async () => {
    const { api, receiver: r, endpoint, paidAfter } = await setup()
    const rotated = await api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate`)
    expect(rotated.status).toBe(200)
    const newSecret = rotated.body.endpoint.secret
    expect(newSecret).toMatch(/^whsec_/)
    expect(newSecret).not.toBe(endpoint.secret)
    const verification = (await r.waitFor(2))[1]!
    expect(JSON.parse(verification.body).type).toBe('webhook.verified')
    expect(verification.headers['service-signature']).toBe(`v1=${hmac(newSecret, verification)},v1=${hmac(endpoint.secret, verification)}`)
    expect(verifyWebhook(verification.body, verification.headers as Record<string, string>, endpoint.secret)).toBeTruthy()
    expect(verifyWebhook(verification.body, verification.headers as Record<string, string>, newSecret)).toBeTruthy()

    const at71h = await paidAfter(71 * HOUR, 5)
    expect(verifyWebhook(at71h.body, at71h.headers as Record<string, string>, endpoint.secret)).toBeTruthy()

    const at73h = await paidAfter(2 * HOUR, 8)
    expect(at73h.headers['service-signature']).toBe(`v1=${hmac(newSecret, at73h)}`)
    expect(() => verifyWebhook(at73h.body, at73h.headers as Record<string, string>, endpoint.secret)).toThrow(/signature/)
  })

  it('a second rotation within the overlap keeps the first old secret verifying for the rest of its 72 hours', async () => {
    const { api, receiver: r, endpoint, paidAfter } = await setup()
    const first = (await api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate`)).body.endpoint
    await r.waitFor(2)
    await api.post('/_sim/clock/advance', { ms: HOUR })
    const second = (await api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate`)).body.endpoint
    // The latest overlap ends last (the merchant's clock also runs in real time).
    expect(second.previousSecretExpiresAt - first.previousSecretExpiresAt).toBeGreaterThanOrEqual(HOUR)
    const verification = (await r.waitFor(3))[2]!
    expect(verification.headers['service-signature']).toBe(
      `v1=${hmac(second.secret, verification)},v1=${hmac(first.secret, verification)},v1=${hmac(endpoint.secret, verification)}`,
    )
    await endpointsActive(api)

    // 70 hours after the first rotation: the original secret still verifies, as that rotation promised.
    const at70h = await paidAfter(69 * HOUR, 6)
    expect(verifyWebhook(at70h.body, at70h.headers as Record<string, string>, endpoint.secret)).toBeTruthy()

    // 72.5 hours after it: the original secret has ended, the one the second rotation replaced has not.
    const later = await paidAfter(2.5 * HOUR, 9)
    expect(later.headers['service-signature']).toBe(`v1=${hmac(second.secret, later)},v1=${hmac(first.secret, later)}`)
  })

  it('delivers to a receiver on a port fetch refuses (6000, 10080): the real service would', async () => {
    const blocked = await startReceiverOnBlockedPort()
    try {
      // The port is one fetch refuses: the old transport failed every attempt with "bad port".
      await expect(fetch(blocked.url, { method: 'POST' })).rejects.toMatchObject({ cause: { message: 'bad port' } })
      const api = client(base, (await signupMerchant(base)).keys.secret)
      expect((await api.post('/v1/webhook-endpoints', { url: blocked.url })).status).toBe(200)
      const [verification] = await blocked.waitFor(1)
      expect(JSON.parse(verification!.body).type).toBe('webhook.verified')
      await endpointsActive(api)
    } finally {
      await blocked.close()
    }
  })

  it('sends a deleted endpoint nothing', async () => {
    const { api, receiver: r, endpoint, paidSession } = await setup()
    r.respondWith(() => 500)
    await paidSession()
    await r.waitFor(4)
    const deleted = await api.delete(`/v1/webhook-endpoints/${endpoint.id}`)
    expect(deleted.body).toEqual({ id: endpoint.id, deleted: true })
    await paidSession()
    await api.post('/_sim/clock/advance', { ms: 4 * DAY })
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Retries of the earlier events were cancelled too.
    expect(r.requests).toHaveLength(4)
    expect((await api.get('/v1/webhook-endpoints')).body.data).toEqual([])
  })

  it('shows the pending deliveries of a deleted endpoint cancelled at once, with no next attempt', async () => {
    const { api, receiver: r, endpoint, paidSession } = await setup()
    r.respondWith(() => 500)
    await paidSession()
    const eventId = JSON.parse((await r.waitFor(4))[3]!.body).event_id
    const deliveries = async () => (await api.get(`/_sim/events/${eventId}`)).body.deliveries
    await expect.poll(async () => (await deliveries())[0].attempts.length).toBe(1)
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(Number) })
    await api.delete(`/v1/webhook-endpoints/${endpoint.id}`)
    expect((await deliveries())[0]).toMatchObject({ status: 'cancelled', nextAttemptAt: null })
  })

  it('never sends a live event to a test endpoint, nor the other way round', async () => {
    const { keys, receiver: testReceiver, paidSession } = await setup()
    const live = await unlockLive(base, keys.secret)
    const liveApi = client(base, live.secret)
    // A live endpoint must be HTTPS, which loopback receivers are not: so only the test endpoint exists,
    // and a live payment must not reach it.
    const session = (await liveApi.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': 'live' } })).body
    await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect((await liveApi.get('/_sim/events')).body.data).toHaveLength(3)
    await paidSession()
    await testReceiver.waitFor(4)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const modes = testReceiver.requests.map((q) => JSON.parse(q.body).mode)
    expect(modes).toEqual(['test', 'test', 'test', 'test'])
    expect((await liveApi.get('/v1/webhook-endpoints')).body.data).toEqual([])
  })
})

describe('restart', () => {
  it('loses no delivery when the simulator restarts in the middle of retries', async () => {
    const dataFile = path.join(await tempFolder('bula-webhooks-'), 'data.json')
    const { keys, receiver: r } = await withTestServer({ dataFile, webhookTimeoutMs: 2000 }, async (first) => {
      const made = await setup(first.baseUrl)
      made.receiver.respondWith((request) => (JSON.parse(request.body).type === 'webhook.verified' ? 200 : 500))
      await made.paidSession()
      await made.receiver.waitFor(4)
      return made
    })

    r.respondWith(() => 200)
    await withTestServer({ dataFile, webhookTimeoutMs: 2000 }, async (second) => {
      await client(second.baseUrl, keys.secret).post('/_sim/clock/advance', { ms: RETRY_DELAYS_MS[0] })
      const retried = (await r.waitFor(7)).slice(4)
      expect(retried.map((q) => JSON.parse(q.body).type).sort()).toEqual(['checkout_session.succeeded', 'payment.processing', 'payment.succeeded'])
      expect(new Set(retried.map((q) => q.headers['x-service-event-id']))).toEqual(new Set(r.requests.slice(1, 4).map((q) => q.headers['x-service-event-id'])))
    })
  })
})

describe('delivery faults', () => {
  async function faultyRun(faults: Record<string, number>) {
    const { api, receiver: r, paidSession } = await setup()
    expect((await api.put('/_sim/webhook-faults', faults)).status).toBe(200)
    for (let i = 0; i < 8; i++) await paidSession()
    return { api, r }
  }

  it('duplicates, fails and holds back a seeded share of deliveries, the same way every run', async () => {
    const runs = []
    for (let run = 0; run < 2; run++) {
      const { api, r } = await faultyRun({ seed: 42, duplicate: 0.3, fail: 0.3, delay: 0.2, delayMs: 60_000 })
      await new Promise((resolve) => setTimeout(resolve, 300))
      await api.post('/_sim/clock/advance', { ms: 2 * 60_000 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      const events = (await api.get('/_sim/events?limit=100')).body.data
      const pattern = []
      for (const event of [...events].reverse()) {
        const { deliveries } = (await api.get(`/_sim/events/${event.event_id}`)).body
        pattern.push(deliveries.map((d: { attempts: { error: string | null }[] }) => d.attempts.map((a) => (a.error ? 'x' : 'ok')).join('')).join('|'))
      }
      runs.push(pattern)
      const ids = r.requests.slice(1).map((q) => q.headers['x-service-event-id'])
      // Every event still arrives in the end; some twice.
      expect(new Set(ids).size).toBe(24)
      expect(ids.length).toBeGreaterThan(24)
      expect(pattern.some((p) => p.startsWith('x'))).toBe(true)
    }
    expect(runs[0]).toEqual(runs[1])
  })

  it('is off again after DELETE', async () => {
    const { api } = await faultyRun({ seed: 1, duplicate: 1 })
    expect((await api.get('/_sim/webhook-faults')).body.faults).toMatchObject({ seed: 1, duplicate: 1, fail: 0, drawn: 24 })
    expect((await api.delete('/_sim/webhook-faults')).body).toEqual({ faults: null })
  })

  it('validates shares', async () => {
    const { api } = await setup()
    expect((await api.put('/_sim/webhook-faults', { seed: 1, fail: 1.5 })).body.error.param).toBe('fail')
    expect((await api.put('/_sim/webhook-faults', { fail: 0.5 })).body.error.param).toBe('seed')
  })
})
