import { request as httpRequest } from 'node:http'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DAY, HOUR, client, signupMerchant, useTestServer, withTestServer, unlockLive } from '../helpers/http.js'
import { exchange } from '../helpers/exchange.js'
import { tempFolder } from '../helpers/temp.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

const MINUTE = 60_000
let keyCounter = 0
const freshKey = () => `test-key-${++keyCounter}`

async function merchant(tier: 'business' | 'individual' = 'business') {
  const { keys } = await signupMerchant(base, tier)
  const api = client(base, keys.secret)
  const create = (body: unknown, key: string | null = freshKey()) =>
    api.post('/v1/checkout-sessions', body, { headers: key === null ? {} : { 'idempotency-key': key } })
  const now = async () => (await api.get('/_sim/clock')).body.now as number
  return { keys, api, create, now }
}

describe('POST /v1/checkout-sessions', () => {
  it('creates a pending FJD session with a hosted URL', async () => {
    const { create } = await merchant()
    const response = await create({ amount: 1500, currency: 'FJD', metadata: { order: '42' }, successUrl: 'https://shop.example/ok' })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      status: 'pending',
      mode: 'test',
      amount: 1500,
      currency: 'FJD',
      metadata: { order: '42' },
      successUrl: 'https://shop.example/ok',
      cancelUrl: null,
    })
    expect(response.body.id).toMatch(/^cs_/)
    expect(response.body.hostedUrl).toBe(`${base}/pay/${response.body.id}`)
    expect(response.body.expiresAt - response.body.createdAt).toBe(24 * HOUR)
    expect(response.body).not.toHaveProperty('quote')
    expect(response.body).not.toHaveProperty('invoiceNumber')
    expect(response.body).not.toHaveProperty('customerEmail')
  })

  it('needs an Idempotency-Key', async () => {
    const { create } = await merchant()
    const response = await create({ amount: 100, currency: 'FJD' }, null)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' })
  })

  it('refuses two Idempotency-Key headers, which Node would join into a key never sent ("a, b")', async () => {
    const { keys, api } = await merchant()
    const body = JSON.stringify({ amount: 100, currency: 'FJD' })
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const url = new URL('/v1/checkout-sessions', base)
      // A flat list of name, value pairs: the only way to send one header twice (and Node then adds no Host).
      const headers = ['host', url.host, 'authorization', `Bearer ${keys.secret}`, 'content-type', 'application/json', 'idempotency-key', 'a', 'idempotency-key', 'b']
      const request = httpRequest(url, { method: 'POST', headers }, (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode!, text }))
      })
      request.on('error', reject).end(body)
    })
    expect(answer.status, answer.text).toBe(400)
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' })
    expect((await api.get('/v1/checkout-sessions')).body.data).toHaveLength(0)
  })

  it('replays the original with 201 and refuses a changed amount, currency or quote', async () => {
    const { create, api } = await merchant()
    const first = await create({ amount: 2500, currency: 'FJD' }, 'order-1')
    const replay = await create({ amount: 2500, currency: 'FJD', metadata: { ignored: 'yes' } }, 'order-1')
    expect(replay.status).toBe(201)
    expect(replay.body).toEqual(first.body)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    for (const body of [{ amount: 2600, currency: 'FJD' }, { quote: { amount: 1000, currency: 'USD' } }]) {
      const conflict = await create(body, 'order-1')
      expect(conflict.status).toBe(409)
      expect(conflict.body.error.code).toBe('idempotency_key_reused')
    }
    expect((await api.get('/v1/checkout-sessions')).body.data).toHaveLength(1)
  })

  // "Repeating a key returns the original result" (spec, Idempotency), whichever check the new body would fail.
  describe('a stored key answers its stored outcome whatever the body', () => {
    it('replays a body that fails the schema but has the same amount, currency and quote', async () => {
      const { create, api } = await merchant()
      const first = await create({ amount: 1500, currency: 'FJD' }, 'k2')
      for (const body of [
        { amount: 1500, currency: 'FJD', metadata: { a: 1 } },
        { amount: 1500, currency: 'FJD', successUrl: 'shop', unknown: true },
      ]) {
        const replay = await create(body, 'k2')
        expect(replay.status, JSON.stringify(body)).toBe(201)
        expect(replay.body).toEqual(first.body)
        expect(replay.headers.get('idempotent-replayed')).toBe('true')
      }
      const quoted = await create({ quote: { amount: 1000, currency: 'USD' } }, 'k3')
      const quoteReplay = await create({ quote: { amount: 1000, currency: 'USD' }, metadata: [] }, 'k3')
      expect(quoteReplay.status).toBe(201)
      expect(quoteReplay.body).toEqual(quoted.body)
      // A query the route does not take fails like a body does, and is answered the same way.
      const queried = await api.post('/v1/checkout-sessions?expand=all', { amount: 1500, currency: 'FJD' }, { headers: { 'idempotency-key': 'k2' } })
      expect(queried.status).toBe(201)
      expect(queried.body).toEqual(first.body)
      expect((await api.get('/v1/checkout-sessions')).body.data).toHaveLength(2)
    })

    it.each([
      ['a different amount', { amount: 1600, currency: 'FJD', metadata: { a: 1 } }],
      ['the amount as a string', { amount: '1500', currency: 'FJD' }],
      ['a currency of another case', { amount: 1500, currency: 'fjd' }],
      ['a quote of null besides the amount', { amount: 1500, currency: 'FJD', quote: null }],
      ['an empty quote besides the amount', { amount: 1500, currency: 'FJD', quote: {} }],
      ['a list for a body', [1500, 'FJD']],
      ['no field at all', {}],
    ])('refuses %s with the stored key: 409 idempotency_key_reused', async (_name, body) => {
      const { create } = await merchant()
      expect((await create({ amount: 1500, currency: 'FJD' }, 'k2')).status).toBe(201)
      const conflict = await create(body, 'k2')
      expect(conflict.status).toBe(409)
      expect(conflict.body.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' })
    })

    it('refuses a stored quote key repeated with a quote of another amount or without the quote', async () => {
      const { create } = await merchant()
      expect((await create({ quote: { amount: 1000, currency: 'USD' } }, 'q')).status).toBe(201)
      for (const body of [{ quote: { amount: 1001, currency: 'USD' }, metadata: 1 }, { quote: 'USD 1000' }, { metadata: 1 }]) {
        expect((await create(body, 'q')).status, JSON.stringify(body)).toBe(409)
      }
    })

    it('keeps the 400 for a key with no stored result, and stores nothing', async () => {
      const { create, api } = await merchant()
      const refused = await create({ amount: 1500, currency: 'FJD', metadata: { a: 1 } }, 'fresh')
      expect(refused.status).toBe(400)
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'metadata.a' })
      const fixed = await create({ amount: 1700, currency: 'FJD' }, 'fresh')
      expect(fixed.status).toBe(201)
      expect(fixed.headers.get('idempotent-replayed')).toBeNull()
      expect(fixed.body.amount).toBe(1700)
      expect((await api.get('/v1/checkout-sessions')).body.data).toHaveLength(1)
    })

    it('answers a bad body with its 400 again once the key is past its 24 hours on the merchant clock', async () => {
      const { create, api } = await merchant()
      expect((await create({ amount: 1500, currency: 'FJD' }, 'k2')).status).toBe(201)
      // A minute short of the window, since real time runs on too in this file.
      await api.post('/_sim/clock/advance', { ms: DAY - MINUTE })
      expect((await create({ amount: 1500, currency: 'FJD', metadata: { a: 1 } }, 'k2')).status).toBe(201)
      await api.post('/_sim/clock/advance', { ms: MINUTE })
      const refused = await create({ amount: 1500, currency: 'FJD', metadata: { a: 1 } }, 'k2')
      expect(refused.status).toBe(400)
      expect(refused.body.error.param).toBe('metadata.a')
    })

    it("checks the Idempotency-Key header first, and finds only the merchant's own key", async () => {
      const { create } = await merchant()
      expect((await create({ amount: 1500, currency: 'FJD' }, 'k2')).status).toBe(201)
      const keyless = await create({ amount: 1500, currency: 'FJD', metadata: { a: 1 } }, null)
      expect(keyless.body.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' })
      const other = await merchant()
      const refused = await other.create({ amount: 1500, currency: 'FJD', metadata: { a: 1 } }, 'k2')
      expect(refused.status).toBe(400)
      expect(refused.body.error.param).toBe('metadata.a')
    })
  })

  it('makes exactly one session from twelve concurrent creates with one key', async () => {
    const { create, api } = await merchant()
    const responses = await Promise.all(Array.from({ length: 12 }, () => create({ amount: 999, currency: 'FJD' }, 'same-key')))
    expect(responses.map((r) => r.status)).toEqual(Array(12).fill(201))
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
    expect((await api.get('/v1/checkout-sessions')).body.data).toHaveLength(1)
  })

  it('stores nothing for a refused request, so the key can be retried with a fixed body', async () => {
    const { create } = await merchant()
    expect((await create({ amount: 500000, currency: 'FJD' }, 'fix-me')).status).toBe(400)
    expect((await create({ amount: 499999, currency: 'FJD' }, 'fix-me')).status).toBe(201)
  })

  describe('limits: each boundary accepted, one past refused', () => {
    const ok = 201
    const bad = 400
    const cases: [string, (now: number) => Record<string, unknown>, number, string?][] = [
      ['amount 1', () => ({ amount: 1, currency: 'FJD' }), ok],
      ['amount 0', () => ({ amount: 0, currency: 'FJD' }), bad, 'amount'],
      ['amount 499999', () => ({ amount: 499999, currency: 'FJD' }), ok],
      ['amount 500000', () => ({ amount: 500000, currency: 'FJD' }), bad, 'amount'],
      ['amount 10.5', () => ({ amount: 10.5, currency: 'FJD' }), bad, 'amount'],
      ['amount as a string', () => ({ amount: '100', currency: 'FJD' }), bad, 'amount'],
      ['no currency', () => ({ amount: 100 }), bad, 'currency'],
      ['USD currency', () => ({ amount: 100, currency: 'USD' }), bad, 'currency'],
      ['neither amount nor quote', () => ({}), bad, 'amount'],
      ['amount and quote', () => ({ amount: 100, currency: 'FJD', quote: { amount: 100, currency: 'USD' } }), bad, 'amount'],
      ['20 metadata pairs', () => ({ amount: 100, currency: 'FJD', metadata: pairs(20) }), ok],
      ['21 metadata pairs', () => ({ amount: 100, currency: 'FJD', metadata: pairs(21) }), bad, 'metadata'],
      ['metadata key of 40', () => ({ amount: 100, currency: 'FJD', metadata: { ['k'.repeat(40)]: 'v' } }), ok],
      ['metadata key of 41', () => ({ amount: 100, currency: 'FJD', metadata: { ['k'.repeat(41)]: 'v' } }), bad, `metadata.${'k'.repeat(41)}`],
      ['metadata value of 500', () => ({ amount: 100, currency: 'FJD', metadata: { k: 'v'.repeat(500) } }), ok],
      ['metadata value of 501', () => ({ amount: 100, currency: 'FJD', metadata: { k: 'v'.repeat(501) } }), bad, 'metadata.k'],
      ['metadata value a number', () => ({ amount: 100, currency: 'FJD', metadata: { k: 1 } }), bad, 'metadata.k'],
      // A key a dot cannot name is named as a JSON string in brackets: `metadata.` named no field a client could find.
      ['an empty metadata key', () => ({ amount: 100, currency: 'FJD', metadata: { '': 'v' } }), bad, 'metadata[""]'],
      ['a metadata key with a dot, its value a number', () => ({ amount: 100, currency: 'FJD', metadata: { 'a.b': 1 } }), bad, 'metadata["a.b"]'],
      ['successUrl of 2048', () => ({ amount: 100, currency: 'FJD', successUrl: url(2048) }), ok],
      ['successUrl of 2049', () => ({ amount: 100, currency: 'FJD', successUrl: url(2049) }), bad, 'successUrl'],
      ['cancelUrl of 2049', () => ({ amount: 100, currency: 'FJD', cancelUrl: url(2049) }), bad, 'cancelUrl'],
      ['successUrl not a URL', () => ({ amount: 100, currency: 'FJD', successUrl: 'shop' }), bad, 'successUrl'],
      ['successUrl plain http', () => ({ amount: 100, currency: 'FJD', successUrl: 'http://shop.example/ok' }), bad, 'successUrl'],
      ['successUrl ftp', () => ({ amount: 100, currency: 'FJD', successUrl: 'ftp://shop.example/ok' }), bad, 'successUrl'],
      ['successUrl with a space', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://shop.example/thank you' }), bad, 'successUrl'],
      ['cancelUrl with a space', () => ({ amount: 100, currency: 'FJD', cancelUrl: 'https://shop.example/no thanks' }), bad, 'cancelUrl'],
      ['successUrl with %20', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://shop.example/thank%20you' }), ok],
      // z.url() dropped a line break or a tab inside the URL without a word and kept a NUL; "https:///x" means https://x/.
      ['successUrl with a line break', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://shop.example/x\ny' }), bad, 'successUrl'],
      ['successUrl with a tab', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://shop.example/x\ty' }), bad, 'successUrl'],
      ['cancelUrl with a NUL', () => ({ amount: 100, currency: 'FJD', cancelUrl: 'https://shop.example/x\u0000y' }), bad, 'cancelUrl'],
      ['successUrl with no host after //', () => ({ amount: 100, currency: 'FJD', successUrl: 'https:///shop.example/ok' }), bad, 'successUrl'],
      ['successUrl with a backslash, which the parser reads as /', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://good.example\\@evil.example/done' }), bad, 'successUrl'],
      ['successUrl with %5C', () => ({ amount: 100, currency: 'FJD', successUrl: 'https://shop.example/a%5Cb' }), ok],
      ['successUrl with spaces around it, trimmed', () => ({ amount: 100, currency: 'FJD', successUrl: '  https://shop.example/ok ' }), ok],
      ['successUrl on localhost http (test mode)', () => ({ amount: 100, currency: 'FJD', successUrl: 'http://localhost:3000/ok' }), ok],
      ['cancelUrl on 127.0.0.1 http (test mode)', () => ({ amount: 100, currency: 'FJD', cancelUrl: 'http://127.0.0.1:3000/no' }), ok],
      ['customerEmail of 254', () => ({ amount: 100, currency: 'FJD', customerEmail: email(254) }), ok],
      ['customerEmail of 255', () => ({ amount: 100, currency: 'FJD', customerEmail: email(255) }), bad, 'customerEmail'],
      ['customerEmail not an e-mail', () => ({ amount: 100, currency: 'FJD', customerEmail: 'nobody' }), bad, 'customerEmail'],
      // zod's own pattern refused these addresses, which a browser's e-mail field takes, and took the three after them.
      ['customerEmail with # and !', () => ({ amount: 100, currency: 'FJD', customerEmail: 'a#b!c@shop.fj' }), ok],
      ["customerEmail with ' and +", () => ({ amount: 100, currency: 'FJD', customerEmail: "o'neil+tag@shop.fj" }), ok],
      ['customerEmail whose domain label ends in -', () => ({ amount: 100, currency: 'FJD', customerEmail: 'x@shop-.fj' }), bad, 'customerEmail'],
      ['customerEmail of a 65-character local part', () => ({ amount: 100, currency: 'FJD', customerEmail: `${'a'.repeat(65)}@shop.fj` }), bad, 'customerEmail'],
      ['customerEmail with two dots in a row', () => ({ amount: 100, currency: 'FJD', customerEmail: 'a..b@shop.fj' }), bad, 'customerEmail'],
      ['customerEmail with no dot in its domain', () => ({ amount: 100, currency: 'FJD', customerEmail: 'a@localhost' }), bad, 'customerEmail'],
      ['expiresAt in 30 minutes', (now) => ({ amount: 100, currency: 'FJD', expiresAt: now + 30 * MINUTE + 1000 }), ok],
      ['expiresAt in 29 minutes', (now) => ({ amount: 100, currency: 'FJD', expiresAt: now + 29 * MINUTE }), bad, 'expiresAt'],
      ['expiresAt in 24 hours', (now) => ({ amount: 100, currency: 'FJD', expiresAt: now + 24 * HOUR - 1000 }), ok],
      ['expiresAt past 24 hours', (now) => ({ amount: 100, currency: 'FJD', expiresAt: now + 24 * HOUR + 60_000 }), bad, 'expiresAt'],
      ['an unknown field', () => ({ amount: 100, currency: 'FJD', description: 'x' }), bad, 'description'],
    ]
    it.each(cases)('%s', async (_name, body, status, param) => {
      const { create, now } = await merchant()
      const response = await create(body(await now()))
      expect(response.status, JSON.stringify(response.body)).toBe(status)
      if (param) expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
    })
  })

  it('drops customerEmail in test mode and never returns it', async () => {
    const { create, api } = await merchant()
    const created = await create({ amount: 100, currency: 'FJD', customerEmail: 'buyer@example.test' })
    expect(JSON.stringify(created.body)).not.toContain('buyer@example.test')
    expect(server().ctx.store.get('checkoutSessions', created.body.id)?.customerEmail).toBeNull()
    await api.post(`/_sim/checkout-sessions/${created.body.id}/pay`, { outcome: 'succeeded' })
    expect((await api.get('/_sim/emails')).body.data).toEqual([])
  })
})

describe('calls from a web page on another origin (CORS)', () => {
  const PAGE = 'http://localhost:3000'
  const preflight = (path: string, method: string) =>
    exchange(`${base}${path}`, 'OPTIONS', { origin: PAGE, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,idempotency-key' }, undefined)

  it('answers the preflight of creating a session, the one call a publishable key may make', async () => {
    const answer = await preflight('/v1/checkout-sessions', 'POST')
    expect(answer.status).toBe(204)
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST')
    expect(answer.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key')
    expect(answer.headers.get('access-control-allow-private-network')).toBeNull()
  })

  it('lets a page read the answer, an error as much as a created session', async () => {
    const { keys, create } = await merchant()
    const pk = client(base, keys.publishable)
    const created = await pk.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { headers: { 'idempotency-key': freshKey(), origin: PAGE } })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe('*')
    expect(created.headers.get('access-control-expose-headers')).toBe('X-Request-Id, Idempotent-Replayed, Retry-After')
    const refused = await pk.post('/v1/checkout-sessions', { amount: 'lots' }, { headers: { 'idempotency-key': freshKey(), origin: PAGE } })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    const unknownKey = await client(base, 'pk_test_unknown').post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { headers: { 'idempotency-key': freshKey() } })
    expect(unknownKey.status).toBe(401)
    expect(unknownKey.headers.get('access-control-allow-origin')).toBe('*')
    expect((await create({ amount: 1500, currency: 'FJD' })).headers.get('access-control-allow-origin')).toBe('*')
  })

  it('keeps the same-origin wall on every route a secret key needs', async () => {
    const { api } = await merchant()
    for (const [path, method] of [
      ['/v1/checkout-sessions', 'GET'],
      ['/v1/checkout-sessions/cs_x/cancel', 'POST'],
      ['/v1/invoices', 'POST'],
      ['/api-keys', 'POST'],
      ['/_sim/state/export', 'GET'],
    ] as const) {
      const answer = await preflight(path, method)
      expect(answer.headers.get('access-control-allow-origin'), `${method} ${path}`).toBeNull()
    }
    const listed = await api.get('/v1/checkout-sessions', { headers: { origin: PAGE } })
    expect(listed.status).toBe(200)
    expect(listed.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('quotes', () => {
  it('converts USD and AUD once at creation with the locked rate, nearest cent', async () => {
    const { create, api } = await merchant()
    expect((await api.get('/_sim/rates')).body).toMatchObject({ USD: { rate: '2.2500' }, AUD: { rate: '1.4800' } })
    const usd = await create({ quote: { amount: 1000, currency: 'USD' } })
    expect(usd.status).toBe(201)
    expect(usd.body.amount).toBe(2250)
    expect(usd.body.quote).toMatchObject({ amount: 1000, currency: 'USD', rate: '2.2500' })
    expect(typeof usd.body.quote.asOf).toBe('number')

    expect((await api.put('/_sim/rates', { AUD: '1.333333' })).status).toBe(200)
    // 3 AUD cents × 1.333333 = 3.999999 → 4; 1 × 1.333333 = 1.33 → 1
    expect((await create({ quote: { amount: 3, currency: 'AUD' } })).body.amount).toBe(4)
    expect((await create({ quote: { amount: 1, currency: 'AUD' } })).body.amount).toBe(1)
    await api.put('/_sim/rates', { USD: '2.5' })
    // halves round up: 1 × 2.5 = 2.5 → 3
    expect((await create({ quote: { amount: 1, currency: 'USD' } })).body.amount).toBe(3)
    // The first session keeps its locked rate.
    expect((await api.get(`/v1/checkout-sessions/${usd.body.id}`)).body.quote.rate).toBe('2.2500')
  })

  it('refuses a converted amount of FJD 5,000.00 or more, and accepts just under', async () => {
    const { create, api } = await merchant()
    await api.put('/_sim/rates', { USD: '2' })
    expect((await create({ quote: { amount: 249999, currency: 'USD' } })).body.amount).toBe(499998)
    const over = await create({ quote: { amount: 250000, currency: 'USD' } })
    expect(over.status).toBe(400)
    expect(over.body.error).toMatchObject({ code: 'invalid_request', param: 'quote.amount' })
  })

  it('is for business accounts only', async () => {
    const { create } = await merchant('individual')
    const response = await create({ quote: { amount: 1000, currency: 'USD' } })
    expect(response.status).toBe(403)
    expect(response.body.error.code).toBe('business_only')
  })

  it('is for test mode only', async () => {
    const { keys } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const response = await client(base, live.secret).post(
      '/v1/checkout-sessions',
      { quote: { amount: 1000, currency: 'USD' } },
      { headers: { 'idempotency-key': freshKey() } },
    )
    expect(response.status).toBe(409)
    expect(response.body.error.code).toBe('quote_unavailable_in_live_mode')
  })

  it.each([
    [{ USD: '0' }, 'USD'],
    [{ USD: '-1' }, 'USD'],
    [{ AUD: '1.1234567' }, 'AUD'],
    [{ EUR: '3' }, 'EUR'],
  ])('refuses the rate update %j', async (body, param) => {
    const { api } = await merchant()
    const response = await api.put('/_sim/rates', body)
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe(param)
  })
})

describe('GET /v1/checkout-sessions', () => {
  it('lists newest first with limit and an opaque cursor, across pages', async () => {
    const { create, api } = await merchant()
    const ids: string[] = []
    for (let i = 0; i < 25; i++) {
      ids.push((await create({ amount: 100 + i, currency: 'FJD' })).body.id)
      await api.post('/_sim/clock/advance', { ms: 1000 })
    }
    const page1 = await api.get('/v1/checkout-sessions')
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual(ids.slice(-10).reverse())
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await api.get(
        `/v1/checkout-sessions?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      )
      seen.push(...page.body.data.map((s) => s.id))
      cursor = page.body.nextCursor
    } while (cursor)
    expect(seen).toEqual([...ids].reverse())
    const all = await api.get('/v1/checkout-sessions?limit=100')
    expect(all.body.data).toHaveLength(25)
    expect(all.body.nextCursor).toBeNull()
  })

  it('keeps pages stable when sessions share a creation time', async () => {
    const { create, api } = await merchant()
    const ids = []
    for (let i = 0; i < 6; i++) ids.push((await create({ amount: 100, currency: 'FJD' })).body.id)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await api.get(
        `/v1/checkout-sessions?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      )
      seen.push(...page.body.data.map((s) => s.id))
      cursor = page.body.nextCursor
    } while (cursor)
    expect(seen).toEqual(ids.reverse())
  })

  it('filters by status and by inclusive from/to on creation time', async () => {
    const { create, api } = await merchant()
    const a = (await create({ amount: 100, currency: 'FJD' })).body
    await api.post('/_sim/clock/advance', { ms: 10_000 })
    const b = (await create({ amount: 200, currency: 'FJD' })).body
    await api.post('/_sim/clock/advance', { ms: 10_000 })
    const c = (await create({ amount: 300, currency: 'FJD' })).body
    await api.post(`/v1/checkout-sessions/${b.id}/cancel`)
    const ids = async (query: string) => (await api.get(`/v1/checkout-sessions?${query}`)).body.data.map((s: { id: string }) => s.id)
    expect(await ids('status=cancelled')).toEqual([b.id])
    expect(await ids('status=pending')).toEqual([c.id, a.id])
    expect(await ids(`from=${b.createdAt}&to=${c.createdAt}`)).toEqual([c.id, b.id])
    expect(await ids(`from=${a.createdAt}&to=${a.createdAt}`)).toEqual([a.id])
    // A window that holds nothing is an empty answer, not a bad request (docs/simulator.md).
    expect(await ids(`from=${c.createdAt}&to=${a.createdAt - 1}`)).toEqual([])
    expect(await ids(`to=${a.createdAt - 1}`)).toEqual([])
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from('[1,"cs_nope"]').toString('base64url')}`, 'cursor'],
    ['status=paid', 'status'],
    ['from=yesterday', 'from'],
    ['to=-5', 'to'],
    ['page=2', 'page'],
  ])('refuses %s (400, naming %s)', async (query, param) => {
    const { api } = await merchant()
    const response = await api.get(`/v1/checkout-sessions?${query}`)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
  })

  it.each(['limit=0', 'limit=101', 'limit=-1'])('says the range of limit when %s is out of it', async (query) => {
    const { api } = await merchant()
    const response = await api.get(`/v1/checkout-sessions?${query}`)
    expect(response.body.error.message).toBe('Invalid `limit`: limit must be a whole number from 1 to 100.')
  })

  it('accepts limit 1 and 100', async () => {
    const { api } = await merchant()
    expect((await api.get('/v1/checkout-sessions?limit=1')).status).toBe(200)
    expect((await api.get('/v1/checkout-sessions?limit=100')).status).toBe(200)
  })
})

describe('GET /v1/checkout-sessions/{id} and isolation', () => {
  it('gets a session; another merchant or mode gets 404', async () => {
    const a = await merchant()
    const b = await merchant()
    const session = (await a.create({ amount: 100, currency: 'FJD' })).body
    expect((await a.api.get(`/v1/checkout-sessions/${session.id}`)).body).toEqual(session)
    const other = await b.api.get(`/v1/checkout-sessions/${session.id}`)
    expect(other.status).toBe(404)
    expect(other.body.error.code).toBe('not_found')
    expect((await b.api.post(`/v1/checkout-sessions/${session.id}/cancel`)).status).toBe(404)
    expect((await b.api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })).status).toBe(404)
    expect((await b.api.get('/v1/checkout-sessions')).body.data).toEqual([])

    const live = await unlockLive(base, a.keys.secret)
    const liveApi = client(base, live.secret)
    expect((await liveApi.get(`/v1/checkout-sessions/${session.id}`)).status).toBe(404)
    expect((await liveApi.get('/v1/checkout-sessions')).body.data).toEqual([])
    expect((await a.api.get('/v1/checkout-sessions/cs_doesnotexist')).status).toBe(404)
  })

  it('lets a publishable key create but not read', async () => {
    const { keys } = await merchant()
    const pk = client(base, keys.publishable)
    const created = await pk.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': freshKey() } })
    expect(created.status).toBe(201)
    for (const path of ['/v1/checkout-sessions', `/v1/checkout-sessions/${created.body.id}`]) {
      expect((await pk.get(path)).body.error.code).toBe('publishable_key_forbidden')
    }
    expect((await pk.post(`/v1/checkout-sessions/${created.body.id}/cancel`)).status).toBe(403)
  })
})

describe('POST /v1/checkout-sessions/{id}/cancel', () => {
  it('cancels a pending session once, recording checkout_session.cancelled', async () => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 100, currency: 'FJD', metadata: { order: '9' } })).body
    const cancelled = await api.post(`/v1/checkout-sessions/${session.id}/cancel`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.status).toBe('cancelled')
    const again = await api.post(`/v1/checkout-sessions/${session.id}/cancel`)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('invalid_state')
    const events = (await api.get('/_sim/events')).body.data
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: 'checkout_session.cancelled', mode: 'test', data: { object: { id: session.id, metadata: { order: '9' } } } })
  })

  it('answers 409 payment_in_progress once the customer started paying', async () => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 100, currency: 'FJD' })).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'processing' })
    const response = await api.post(`/v1/checkout-sessions/${session.id}/cancel`)
    expect(response.status).toBe(409)
    expect(response.body.error.code).toBe('payment_in_progress')
  })

  it('answers 409 invalid_state for a paid session', async () => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 100, currency: 'FJD' })).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect((await api.post(`/v1/checkout-sessions/${session.id}/cancel`)).body.error.code).toBe('invalid_state')
  })
})

describe('payments through the customer stand-in', () => {
  it.each(['card', 'mpaisa', 'mycash'] as const)('succeeds with %s: events, status and balance', async (provider) => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 1500, currency: 'FJD', metadata: { order: 'A1' } })).body
    const paid = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded', provider })
    expect(paid.status).toBe(200)
    expect(paid.body.checkoutSession.status).toBe('succeeded')
    expect(paid.body.paymentIntent).toMatchObject({ provider, status: 'succeeded', amount: 1500, checkoutSessionId: session.id })
    expect(paid.body.paymentIntent.id).toMatch(/^pi_/)
    const types = (await api.get('/_sim/events')).body.data.map((e: { type: string }) => e.type).reverse()
    expect(types).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
    expect((await api.get('/v1/merchants/me')).body.balance).toBe(1500)
  })

  it('fails on a decline, leaving the balance alone', async () => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 1500, currency: 'FJD' })).body
    const failed = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'failed' })
    expect(failed.body.checkoutSession.status).toBe('failed')
    expect(failed.body.paymentIntent.failureReason).toMatch(/Declined/)
    const types = (await api.get('/_sim/events')).body.data.map((e: { type: string }) => e.type).reverse()
    expect(types).toEqual(['payment.processing', 'payment.failed', 'checkout_session.failed'])
    expect((await api.get('/v1/merchants/me')).body.balance).toBe(0)
    expect((await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })).status).toBe(409)
  })

  it('holds an intent in processing until a second call finishes it', async () => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 700, currency: 'FJD' })).body
    const first = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'processing', provider: 'mpaisa' })
    expect(first.body).toMatchObject({ checkoutSession: { status: 'pending' }, paymentIntent: { status: 'processing' } })
    expect((await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'processing' })).status).toBe(409)
    const done = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect(done.body.paymentIntent).toMatchObject({ id: first.body.paymentIntent.id, status: 'succeeded', provider: 'mpaisa' })
  })

  it.each([
    [{ outcome: 'maybe' }, 'outcome'],
    [{ outcome: 'succeeded', provider: 'paypal' }, 'provider'],
    [{}, 'outcome'],
  ])('refuses %j', async (body, param) => {
    const { create, api } = await merchant()
    const session = (await create({ amount: 700, currency: 'FJD' })).body
    expect((await api.post(`/_sim/checkout-sessions/${session.id}/pay`, body)).body.error.param).toBe(param)
  })
})

describe('expiry', () => {
  it('cancels a pending session at expiresAt on clock advance, recording the event', async () => {
    const { create, api, now } = await merchant()
    const expiresAt = (await now()) + HOUR
    const session = (await create({ amount: 100, currency: 'FJD', expiresAt })).body
    const started = (await create({ amount: 100, currency: 'FJD', expiresAt })).body
    await api.post(`/_sim/checkout-sessions/${started.id}/pay`, { outcome: 'processing' })
    await api.post('/_sim/clock/advance', { ms: 59 * MINUTE })
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
    const advanced = await api.post('/_sim/clock/advance', { ms: 2 * MINUTE })
    expect(advanced.body.ran).toContainEqual(expect.objectContaining({ at: expiresAt, kind: 'checkout_session.expire' }))
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('cancelled')
    // Started paying before expiry: stays pending, and can still finish.
    expect((await api.get(`/v1/checkout-sessions/${started.id}`)).body.status).toBe('pending')
    const cancelledEvent = (await api.get('/_sim/events?type=checkout_session.cancelled')).body.data[0]
    expect(cancelledEvent).toMatchObject({ createdAt: expiresAt, data: { object: { id: session.id, status: 'cancelled' } } })
    const late = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect(late.status).toBe(409)
  })

  it('cancels in real time, without an advance', async () => {
    await withTestServer({}, async (realtime) => {
      const { keys } = await signupMerchant(realtime.baseUrl)
      const api = client(realtime.baseUrl, keys.secret)
      // Expiry needs 30 minutes at least: put the clock just short of it, then let real time do the rest.
      const now = (await api.get('/_sim/clock')).body.now
      const session = (
        await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD', expiresAt: now + 30 * MINUTE + 300 }, { headers: { 'idempotency-key': 'rt' } })
      ).body
      await api.post('/_sim/clock/advance', { ms: 30 * MINUTE - 500 })
      expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('cancelled')
    })
  })
})

describe('after a restart on the data file', () => {
  // Start-up passes over the stored sessions and idempotency records and locates them after it is up (docs/storage.md, "Lazy collections").
  it('finds every stored session, replays an idempotent create, and expires what falls due', async () => {
    const dataFile = path.join(await tempFolder('bula-restart-'), 'data.json')
    const { keys, sessions } = await withTestServer({ dataFile }, async (first) => {
      const { keys } = await signupMerchant(first.baseUrl)
      const api = client(first.baseUrl, keys.secret)
      const sessions = []
      for (let n = 0; n < 30; n++) {
        sessions.push((await api.post('/v1/checkout-sessions', { amount: 100 + n, currency: 'FJD' }, { headers: { 'idempotency-key': `restart-${n}` } })).body)
      }
      return { keys, sessions }
    })
    await withTestServer({ dataFile }, async (second) => {
      const api = client(second.baseUrl, keys.secret)
      // The first request after the start: a retry of a create, answered from its record.
      const retried = await api.post('/v1/checkout-sessions', { amount: 105, currency: 'FJD' }, { headers: { 'idempotency-key': 'restart-5' } })
      expect(retried.status).toBe(201)
      expect(retried.body).toEqual(sessions[5])
      const listed = (await api.get('/v1/checkout-sessions?limit=100')).body.data.map((session: { id: string }) => session.id)
      expect(listed).toEqual(sessions.map((session) => session.id).reverse())
      const advanced = await api.post('/_sim/clock/advance', { ms: DAY + HOUR })
      expect(advanced.status).toBe(200)
      for (const session of [sessions[0], sessions[29]]) expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('cancelled')
    })
  })
})

describe('live mode', () => {
  it('answers 409 live_mode_unavailable while live Providers are off', async () => {
    const { keys } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const liveApi = client(base, live.secret)
    await liveApi.patch('/_sim/settings', { liveProviders: false })
    const response = await liveApi.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': 'l1' } })
    expect(response.status).toBe(409)
    expect(response.body.error.code).toBe('live_mode_unavailable')
  })

  it('accepts HTTPS only, keeps customerEmail for a branded receipt, and purges it 30 days after the end', async () => {
    const { keys } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const liveApi = client(base, live.secret)
    await liveApi.patch('/_sim/settings', { displayName: 'Nadi <Crafts>' })
    const create = (body: unknown) => liveApi.post('/v1/checkout-sessions', body, { headers: { 'idempotency-key': freshKey() } })
    expect((await create({ amount: 100, currency: 'FJD', successUrl: 'http://localhost:3000/ok' })).body.error.param).toBe('successUrl')
    const session = (await create({ amount: 4550, currency: 'FJD', customerEmail: 'buyer@example.test' })).body
    expect(session.mode).toBe('live')
    expect(JSON.stringify(session)).not.toContain('buyer@example.test')
    // Nothing declines a live payment, as on the hosted page.
    for (const outcome of ['failed', 'processing']) {
      const refused = await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome })
      expect([outcome, refused.status, refused.body.error?.param]).toEqual([outcome, 400, 'outcome'])
    }
    expect((await liveApi.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
    await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded', provider: 'mycash' })
    const emails = (await liveApi.get('/_sim/emails')).body.data
    expect(emails).toHaveLength(1)
    expect(emails[0]).toMatchObject({ kind: 'receipt', to: 'buyer@example.test', subject: 'Your receipt from Nadi <Crafts>', relatedId: session.id })
    expect(emails[0].html).toContain('Nadi &lt;Crafts&gt;')
    expect(emails[0].html).toContain('FJ$45.50')
    expect(emails[0].text).toContain('MyCash')
    // The test mode outbox is separate.
    expect((await client(base, keys.secret).get('/_sim/emails')).body.data).toEqual([])

    await liveApi.post('/_sim/clock/advance', { ms: 30 * DAY - 60_000 })
    expect(server().ctx.store.get('checkoutSessions', session.id)?.customerEmail).toBe('buyer@example.test')
    await liveApi.post('/_sim/clock/advance', { ms: 120_000 })
    expect(server().ctx.store.get('checkoutSessions', session.id)?.customerEmail).toBeNull()
  })

  it('drops bidi controls from the display name in a receipt, whose subject and text cannot isolate them', async () => {
    const { keys } = await merchant()
    const liveApi = client(base, (await unlockLive(base, keys.secret)).secret)
    await liveApi.patch('/_sim/settings', { displayName: 'Nadi \u202eCrafts' })
    const session = (await liveApi.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD', customerEmail: 'b@example.test' }, { headers: { 'idempotency-key': freshKey() } })).body
    await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    const [receipt] = (await liveApi.get('/_sim/emails')).body.data
    expect(receipt.subject).toBe('Your receipt from Nadi Crafts')
    for (const part of [receipt.html, receipt.text]) expect(part).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
  })

  it('sends no receipt when receipts are off', async () => {
    const { keys } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const liveApi = client(base, live.secret)
    await liveApi.patch('/_sim/settings', { receiptsEnabled: false })
    const session = (
      await liveApi.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD', customerEmail: 'b@example.test' }, { headers: { 'idempotency-key': 'x' } })
    ).body
    await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect((await liveApi.get('/_sim/emails')).body.data).toEqual([])
  })
})

function pairs(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']))
}
function url(length: number): string {
  const prefix = 'https://shop.example/'
  return prefix + 'a'.repeat(length - prefix.length)
}
/** An address of `length` characters: a local part of 64 (its most) and a domain of labels of up to 63 (theirs). */
function email(length: number): string {
  let domain = 'example.test'
  while (65 + domain.length < length) domain = `${'d'.repeat(Math.min(63, length - 65 - domain.length - 1))}.${domain}`
  return `${'a'.repeat(64)}@${domain}`
}
