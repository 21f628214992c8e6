import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BulaClient, newIdempotencyKey } from '../../src/client/bula-client.js'
import { client, signupMerchant, unlockLive, useTestServer, withTestServer } from '../helpers/http.js'

// API faults (docs/faults-and-doctor.md): the merchant's own client meets
// errors, slow answers, dropped connections and lost answers, only on its
// own traffic, and a client that retries with the same Idempotency-Key
// survives every one of them with exactly one Checkout Session.

const server = useTestServer()
let base: string
beforeAll(() => {
  base = server().baseUrl
})

let keyCounter = 0
const SESSION = { amount: 4550, currency: 'FJD' as const, metadata: { order: '1042' } }

async function merchant() {
  const { keys, merchant: record } = await signupMerchant(base)
  const api = client(base, keys.secret)
  const addFault = async (fault: Record<string, unknown>) => {
    const added = await api.post('/_sim/faults', fault)
    expect(added.status, JSON.stringify(added.body)).toBe(201)
    return added.body.fault as { id: string; matched: number; injected: number }
  }
  const create = (key = `fault-key-${++keyCounter}`) => api.post('/v1/checkout-sessions', SESSION, { headers: { 'idempotency-key': key } })
  const sessions = async () => (await api.get('/v1/checkout-sessions?limit=100')).body.data as { id: string }[]
  const log = async () => (await api.get('/_sim/logs')).body.data as { path: string; status: number; fault: { id: string; action: string } | null; requestId: string }[]
  return { id: record.id, keys, api, addFault, create, sessions, log }
}

/** A raw request whose connection may be closed unanswered: resolves to the answer, or to the socket error. */
async function rawCall(method: string, url: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  try {
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: response.status, headers: response.headers, body: await response.json() }
  } catch (error) {
    return { dropped: ((error as Error).cause as { code?: string } | undefined)?.code ?? String(error) }
  }
}

describe('POST /_sim/faults, GET, DELETE', () => {
  it('adds a fault with its defaults, lists it, removes one or all', async () => {
    const { api, addFault } = await merchant()
    const added = await api.post('/_sim/faults', { route: 'post  /v1/checkout-sessions', action: 'lose_response' })
    expect(added.status).toBe(201)
    expect(added.body.fault).toMatchObject({
      route: 'POST /v1/checkout-sessions',
      action: 'lose_response',
      mode: 'test',
      status: null,
      delayMs: null,
      times: 1,
      probability: 1,
      seed: 0,
      matched: 0,
      injected: 0,
    })
    expect(added.body.fault.id).toMatch(/^flt_/)
    const second = await addFault({ route: 'GET /v1/invoices/{id}', action: 'error' })
    expect(second).toMatchObject({ status: 503 })
    await addFault({ route: '*', action: 'delay', delayMs: 10, times: 3 })
    expect((await api.get('/_sim/faults')).body.data.map((fault: { route: string }) => fault.route)).toEqual([
      'POST /v1/checkout-sessions',
      'GET /v1/invoices/{id}',
      '*',
    ])
    expect((await api.delete(`/_sim/faults/${second.id}`)).body).toEqual({ id: second.id, deleted: true })
    expect((await api.delete(`/_sim/faults/${second.id}`)).status).toBe(404)
    expect((await api.delete('/_sim/faults')).body).toEqual({ deleted: 2 })
    expect((await api.get('/_sim/faults')).body.data).toEqual([])
  })

  it('refuses a route the API does not declare, naming `route` and what to write instead', async () => {
    const { api } = await merchant()
    const refuse = async (body: unknown, param: string) => {
      const answer = await api.post('/_sim/faults', body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', param })
      return answer.body.error.message as string
    }
    expect(await refuse({ route: 'POST /v1/charges', action: 'error' }, 'route')).toContain('"POST /v1/checkout-sessions"')
    expect(await refuse({ route: 'GET /v1/invoices/42', action: 'error' }, 'route')).toContain('"GET /v1/invoices/{id}"')
    expect(await refuse({ route: 'DELETE /_sim/faults', action: 'error' }, 'route')).toContain('never apply to /_sim/faults')
    expect(await refuse({ route: 'GET /_sim/health', action: 'error' }, 'route')).toContain('/_sim/health')
    expect(await refuse({ route: 'PUT /v1/checkout-sessions', action: 'error' }, 'route')).toContain('not a route')
    await refuse({ route: '*', action: 'explode' }, 'action')
    await refuse({ route: '*', action: 'error', status: 501 }, 'status')
    await refuse({ route: '*', action: 'delay', status: 503, delayMs: 5 }, 'status')
    await refuse({ route: '*', action: 'delay' }, 'delayMs')
    await refuse({ route: '*', action: 'delay', delayMs: 60_001 }, 'delayMs')
    await refuse({ route: '*', action: 'reset', delayMs: 5 }, 'delayMs')
    await refuse({ route: '*', action: 'reset', times: 0 }, 'times')
    await refuse({ route: '*', action: 'reset', probability: 1.5 }, 'probability')
    expect((await api.get('/_sim/faults')).body.data).toEqual([])
  })
})

describe('the actions', () => {
  it('error: answers the status with code injected_fault, changes nothing, and then lets requests through', async () => {
    const { api, addFault, create, sessions, log } = await merchant()
    const fault = await addFault({ route: 'POST /v1/checkout-sessions', action: 'error', status: 502 })
    const failed = await create('order-error')
    expect(failed.status).toBe(502)
    expect(failed.body.error).toMatchObject({ code: 'injected_fault' })
    expect(failed.body.error.message).toContain(fault.id)
    expect(await sessions()).toEqual([])
    const retried = await create('order-error')
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect((await api.get('/_sim/faults')).body.data).toEqual([])
    expect((await log()).find((entry) => entry.fault !== null)).toMatchObject({ path: '/v1/checkout-sessions', status: 502, fault: { id: fault.id, action: 'error' } })
  })

  it('error: 503 unless told otherwise, on any route that takes a key', async () => {
    const { api, addFault } = await merchant()
    await addFault({ route: 'GET /v1/merchants/me', action: 'error' })
    const answer = await api.get('/v1/merchants/me')
    expect(answer.status).toBe(503)
    expect(answer.body.error.code).toBe('injected_fault')
  })

  it('delay: answers normally, after delayMs', async () => {
    const { api, addFault } = await merchant()
    await addFault({ route: 'GET /v1/merchants/me', action: 'delay', delayMs: 400 })
    const started = performance.now()
    const answer = await api.get('/v1/merchants/me')
    expect(answer.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(390)
    const quick = performance.now()
    await api.get('/v1/merchants/me')
    expect(performance.now() - quick).toBeLessThan(300)
  })

  it('delay: a client that gives up waiting gets nothing, and nothing runs', async () => {
    const { keys, addFault, sessions, log } = await merchant()
    const fault = await addFault({ route: 'POST /v1/checkout-sessions', action: 'delay', delayMs: 1_000 })
    await expect(
      fetch(`${base}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json', 'idempotency-key': 'order-impatient' },
        body: JSON.stringify(SESSION),
        signal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow()
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    expect(await sessions()).toEqual([])
    expect((await log()).find((entry) => entry.fault !== null)).toMatchObject({ status: 0, fault: { id: fault.id, action: 'delay' } })
  })

  it('reset: closes the connection unanswered, and nothing was made', async () => {
    const { keys, addFault, sessions, log } = await merchant()
    const fault = await addFault({ route: 'POST /v1/checkout-sessions', action: 'reset' })
    const answer = await rawCall('POST', `${base}/v1/checkout-sessions`, keys.secret, SESSION, { 'idempotency-key': 'order-reset' })
    expect(answer).toEqual({ dropped: 'UND_ERR_SOCKET' })
    expect(await sessions()).toEqual([])
    expect((await log()).find((entry) => entry.fault !== null)).toMatchObject({ status: 0, fault: { id: fault.id, action: 'reset' } })
  })

  it('lose_response: the session is made and kept, the answer lost; the same key then replays it', async () => {
    const { keys, addFault, sessions, log } = await merchant()
    const fault = await addFault({ route: 'POST /v1/checkout-sessions', action: 'lose_response' })
    const lost = await rawCall('POST', `${base}/v1/checkout-sessions`, keys.secret, SESSION, { 'idempotency-key': 'order-lost' })
    expect(lost).toEqual({ dropped: 'UND_ERR_SOCKET' })
    const made = await sessions()
    expect(made).toHaveLength(1)
    const retried = await rawCall('POST', `${base}/v1/checkout-sessions`, keys.secret, SESSION, { 'idempotency-key': 'order-lost' })
    expect(retried).toMatchObject({ status: 201, body: { id: made[0]!.id } })
    expect((retried as { headers: Headers }).headers.get('idempotent-replayed')).toBe('true')
    expect(await sessions()).toHaveLength(1)
    const entries = await log()
    expect(entries.filter((entry) => entry.path === '/v1/checkout-sessions').map((entry) => [entry.status, entry.fault?.action ?? null])).toEqual([
      [201, null],
      [201, 'lose_response'],
    ])
    expect(entries.find((entry) => entry.fault)?.fault?.id).toBe(fault.id)
  })

  it('lose_response: the work is on disk before the connection closes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bula-faults-'))
    try {
      const dataFile = path.join(dir, 'data.json')
      await withTestServer({ dataFile }, async (running) => {
        const { keys } = await signupMerchant(running.baseUrl)
        expect((await client(running.baseUrl, keys.secret).post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'lose_response' })).status).toBe(201)
        const lost = await rawCall('POST', `${running.baseUrl}/v1/checkout-sessions`, keys.secret, SESSION, { 'idempotency-key': 'order-disk' })
        expect(lost).toEqual({ dropped: 'UND_ERR_SOCKET' })
        // Read while the simulator still runs: the journal already holds the session the client never heard of.
        const [session] = (await client(running.baseUrl, keys.secret).get('/v1/checkout-sessions')).body.data
        expect(await readFile(`${dataFile}.journal`, 'utf8')).toContain(session.id)
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('who a fault touches', () => {
  it('only requests of the merchant and mode that set it', async () => {
    const shop = await merchant()
    const other = await merchant()
    const live = await unlockLive(base, shop.keys.secret)
    await shop.addFault({ route: '*', action: 'error', times: 100 })
    expect((await other.api.get('/v1/merchants/me')).status).toBe(200)
    expect((await other.create()).status).toBe(201)
    const liveApi = client(base, live.secret)
    expect((await liveApi.get('/v1/merchants/me')).status).toBe(200)
    expect((await liveApi.get('/_sim/faults')).body.data).toEqual([])
    // Another merchant or mode cannot see or remove the fault.
    const [fault] = (await shop.api.get('/_sim/faults')).body.data
    expect((await other.api.delete(`/_sim/faults/${fault.id}`)).status).toBe(404)
    expect((await liveApi.delete(`/_sim/faults/${fault.id}`)).status).toBe(404)
    expect((await liveApi.delete('/_sim/faults')).body).toEqual({ deleted: 0 })
    expect((await other.api.get('/_sim/logs')).body.data.every((entry: { fault: unknown }) => entry.fault === null)).toBe(true)
    expect((await shop.api.get('/_sim/faults')).body.data).toMatchObject([{ id: fault.id, matched: 0 }])
    expect((await shop.api.get('/v1/merchants/me')).status).toBe(503)
  })

  it('never /_sim/faults itself nor /_sim/health, whatever "*" says', async () => {
    const { api, addFault } = await merchant()
    await addFault({ route: '*', action: 'reset', times: 5 })
    expect((await api.get('/_sim/health')).status).toBe(200)
    expect((await api.get('/_sim/faults')).body.data).toMatchObject([{ route: '*', matched: 0 }])
    expect((await api.delete('/_sim/faults')).body).toEqual({ deleted: 1 })
  })

  it('times counts matching requests; probability and seed draw the same sequence every time', async () => {
    const { api, addFault } = await merchant()
    const pattern = async () => {
      await addFault({ route: 'GET /v1/merchants/me', action: 'error', times: 12, probability: 0.5, seed: 42 })
      const statuses: number[] = []
      for (let i = 0; i < 12; i++) {
        statuses.push((await api.get('/v1/merchants/me')).status)
        // Other routes do not count against it.
        await api.get('/v1/checkout-sessions')
      }
      expect((await api.get('/_sim/faults')).body.data).toEqual([])
      return statuses
    }
    const first = await pattern()
    expect(first).toContain(503)
    expect(first).toContain(200)
    expect(await pattern()).toEqual(first)
    await addFault({ route: 'GET /v1/merchants/me', action: 'error', times: 12, probability: 0.5, seed: 43 })
    const other: number[] = []
    for (let i = 0; i < 12; i++) other.push((await api.get('/v1/merchants/me')).status)
    expect(other).not.toEqual(first)
  })

  it('the oldest fault that matches and strikes takes the request', async () => {
    const { api, addFault } = await merchant()
    const specific = await addFault({ route: 'GET /v1/merchants/me', action: 'error', status: 500 })
    await addFault({ route: '*', action: 'error', status: 504, times: 2 })
    expect((await api.get('/v1/merchants/me')).status).toBe(500)
    expect((await api.get('/v1/merchants/me')).status).toBe(504)
    expect((await api.get('/_sim/faults')).body.data).toMatchObject([{ route: '*', matched: 1, injected: 1 }])
    expect(specific.id).toMatch(/^flt_/)
  })
})

describe('a client that retries with the same Idempotency-Key', () => {
  it('survives lose_response, reset and 503 with exactly one session and one event chain (BulaClient)', async () => {
    for (const fault of [
      { action: 'lose_response' },
      { action: 'reset' },
      { action: 'error', status: 503 },
    ]) {
      const { keys, api, addFault, sessions } = await merchant()
      await addFault({ route: 'POST /v1/checkout-sessions', ...fault })
      // The package's own client: it retries a create after a broken connection or a 5xx, with the same key.
      const bula = new BulaClient({ baseUrl: base, apiKey: keys.secret })
      const session = await bula.createCheckoutSession(SESSION, newIdempotencyKey())
      expect(await sessions(), fault.action).toEqual([expect.objectContaining({ id: session.id })])
      await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
      const events = (await api.get('/_sim/events?limit=100')).body.data as { type: string; data: { object: { id?: string; checkoutSessionId?: string } } }[]
      expect(events.map((event) => event.type).reverse(), fault.action).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
      expect(events.find((event) => event.type === 'checkout_session.succeeded')!.data.object.id).toBe(session.id)
    }
  })
})
