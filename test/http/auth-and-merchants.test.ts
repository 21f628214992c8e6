import { request as httpRequest } from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, client, signupMerchant, useTestServer } from '../helpers/http.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

describe('signup', () => {
  it('creates a merchant and returns a test key pair once', async () => {
    const response = await call(base, 'POST', '/_sim/merchants', {
      body: { email: 'owner@bula.test', name: 'Suva Surf Co', tier: 'individual' },
    })
    expect(response.status).toBe(201)
    expect(response.body.merchant).toMatchObject({
      email: 'owner@bula.test',
      name: 'Suva Surf Co',
      tier: 'individual',
      verificationStatus: 'unverified',
      liveUnlocked: false,
    })
    expect(response.body.merchant.id).toMatch(/^ms_[0-9A-Za-z]{20}$/)
    expect(response.body.keys.secret).toMatch(/^sk_test_[0-9A-Za-z]{32}$/)
    expect(response.body.keys.publishable).toMatch(/^pk_test_[0-9A-Za-z]{32}$/)
  })

  it.each([
    [{ name: 'A', tier: 'business' }, 'email', /required/],
    [{ email: 'not-an-email', name: 'A', tier: 'business' }, 'email', /email/i],
    [{ email: 'a@b.test', name: '', tier: 'business' }, 'name', /name/],
    [{ email: 'a@b.test', name: 'x'.repeat(101), tier: 'business' }, 'name', /name/],
    [{ email: 'a@b.test', name: 'A', tier: 'company' }, 'tier', /tier/],
    [{ email: 'a@b.test', name: 'A', tier: 'business', extra: 1 }, 'extra', /Unknown field/],
  ])('refuses %j naming %s', async (body, param, message) => {
    const response = await call(base, 'POST', '/_sim/merchants', { body })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
    expect(response.body.error.message).toMatch(message)
  })
})

describe('authentication', () => {
  it('answers 401 missing_api_key without a key', async () => {
    const response = await call(base, 'GET', '/v1/merchants/me')
    expect(response.status).toBe(401)
    expect(response.body.error.code).toBe('missing_api_key')
    // RFC 9110: a 401 says how to authenticate.
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="bula"')
  })

  it.each(['Bearer sk_test_nope', 'Bearer nonsense', 'Basic abc', 'Bearer '])('answers 401 invalid_api_key for %s', async (authorization) => {
    const response = await call(base, 'GET', '/v1/merchants/me', { headers: { authorization } })
    expect(response.status).toBe(401)
    expect(response.body.error.code).toBe('invalid_api_key')
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="bula", error="invalid_token"')
  })

  it('says what is wrong with an Authorization header that is not `Bearer <key>`, never echoing the key', async () => {
    const { keys } = await signupMerchant(base)
    for (const [authorization, message] of [
      [keys.secret, 'The Authorization header holds a key without its scheme: send `Authorization: Bearer <key>`.'],
      [`Basic ${Buffer.from(`${keys.secret}:`).toString('base64')}`, 'The Authorization header must be `Bearer <key>`; other schemes (Basic, …) are not taken.'],
      ['Bearer ', 'The Authorization header says Bearer but holds no key: send `Authorization: Bearer <key>`.'],
      [`Bearer ${keys.secret} extra`, 'The Authorization header must be `Bearer <key>`: one key, with no space in it.'],
      ['Bearer sk_test_nope', 'The API key is unknown, revoked or past its rotation overlap.'],
    ] as const) {
      const response = await call(base, 'GET', '/v1/merchants/me', { headers: { authorization } })
      expect(response.status, authorization).toBe(401)
      expect(response.body.error, authorization).toEqual({ code: 'invalid_api_key', message })
    }
  })

  it('answers 401 invalid_api_key to two Authorization headers, even of a valid key: a proxy reading the other one would act for another key', async () => {
    const { keys } = await signupMerchant(base)
    const other = await signupMerchant(base)
    for (const pair of [[keys.secret, other.keys.secret], [keys.secret, keys.secret], [keys.secret, 'sk_test_nope']]) {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(`${base}/v1/merchants/me`, (response) => {
          let body = ''
          response.on('data', (chunk: Buffer) => (body += chunk.toString()))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
        })
        request.on('error', reject)
        request.setHeader('authorization', pair.map((key) => `Bearer ${key}`))
        request.end()
      })
      expect(answer.status).toBe(401)
      expect(JSON.parse(answer.body).error).toEqual({ code: 'invalid_api_key', message: 'Send one Authorization header, not several.' })
    }
  })

  it('refuses a publishable key outside its scope with permission_error', async () => {
    const { keys } = await signupMerchant(base)
    for (const [method, path] of [
      ['GET', '/v1/merchants/me'],
      ['GET', '/v1/api-keys'],
      ['GET', '/_sim/settings'],
      ['POST', '/_sim/clock/advance'],
    ] as const) {
      const response = await call(base, method, path, { key: keys.publishable, body: method === 'POST' ? { ms: 1 } : undefined })
      expect(response.status, path).toBe(403)
      expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'publishable_key_forbidden' })
    }
  })
})

describe('GET /v1/merchants/me', () => {
  it('shows the demo business merchant with the spec fields', async () => {
    const response = await client(base, server().demo!.business.secret).get('/v1/merchants/me')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      id: server().demo!.business.merchantId,
      name: 'Kava Kitchen Ltd',
      displayName: 'Kava Kitchen Ltd',
      email: 'demo-business@bula.test',
      tier: 'business',
      mode: 'test',
      balance: 0,
      payoutSchedule: 'weekly',
    })
  })

  it('refuses query parameters it does not know', async () => {
    const response = await client(base, server().demo!.business.secret).get('/v1/merchants/me?x=1')
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe('x')
  })
})

describe('errors and the envelope', () => {
  const api = () => client(base, server().demo!.business.secret)

  it('answers malformed JSON with 400 invalid_request', async () => {
    const response = await api().post('/v1/api-keys', undefined, { rawBody: '{"type": "secret",' })
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('invalid_request')
  })

  it('answers a JSON body that is not an object with 400', async () => {
    const response = await api().post('/v1/api-keys', undefined, { rawBody: '"secret"' })
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe('invalid_request')
  })

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const response = await api().post('/v1/api-keys', { type: 'secret', padding: 'x'.repeat(1024 * 1024) })
    expect(response.status).toBe(413)
    expect(response.body.error.code).toBe('payload_too_large')
  })

  it('checks the key and the tier before the body: 401 and 403 business_only come before a malformed, too large or __proto__ body', async () => {
    const individual = await signupMerchant(base, 'individual')
    const bodies = ['{"amount":', `{"a":"${'x'.repeat(1024 * 1024)}"}`, '{"__proto__":{}}']
    for (const rawBody of bodies) {
      for (const key of [undefined, 'sk_test_unknown']) {
        const response = await call(base, 'POST', '/v1/checkout-sessions', { key, rawBody, headers: { 'idempotency-key': 'k' } })
        expect(response.status, `${key} ${rawBody.slice(0, 20)}`).toBe(401)
      }
      const invoice = await call(base, 'POST', '/v1/invoices', { key: individual.keys.secret, rawBody, headers: { 'idempotency-key': 'k' } })
      expect([invoice.status, invoice.body.error.code]).toEqual([403, 'business_only'])
    }
  })

  it('matches paths case-sensitively: another spelling of a route is 404 not_found, not the route', async () => {
    const key = server().demo!.business.secret
    for (const path of ['/V1/merchants/me', '/v1/Merchants/me', '/v1/merchants/ME', '/v1/checkout-sessions/cs_x/CANCEL', '/_sim/CLOCK', '/V1/api-keys', '/openapi.JSON']) {
      const response = await call(base, path.includes('CANCEL') ? 'POST' : 'GET', path, { key })
      expect([response.status, response.body.error?.code], path).toEqual([404, 'not_found'])
    }
  })

  it('takes no trailing slash on a JSON route, as the service takes none: /v1/merchants/me/ is an unknown route', async () => {
    const key = server().demo!.business.secret
    const paths = ['/v1/merchants/me/', '/v1/checkout-sessions/', '/v1/checkout-sessions//', '/v1/invoices/', '/v1/api-keys/', '/api-keys/', '/webhook-endpoints/', '/_sim/clock/', '/openapi.json/']
    for (const path of paths) {
      const response = await call(base, 'GET', path, { key })
      expect([response.status, response.body.error?.code, response.body.error?.message], path).toEqual([404, 'not_found', `No route GET ${path}.`])
    }
    const created = await call(base, 'POST', '/v1/checkout-sessions/', { key, body: { amount: 100, currency: 'FJD' }, headers: { 'idempotency-key': 'slash' } })
    expect([created.status, created.body.error?.code]).toEqual([404, 'not_found'])
    // The same routes without the slash, and the pages a browser may ask for with one, are still answered.
    expect((await call(base, 'GET', '/v1/merchants/me', { key })).status).toBe(200)
    expect((await call(base, 'GET', '/_sim/clock', { key })).status).toBe(200)
  })

  it('answers an unknown route with 404 not_found, with or without a key', async () => {
    for (const key of [undefined, server().demo!.business.secret]) {
      for (const path of ['/v1/nothing', '/_sim/nothing', '/']) {
        const response = await call(base, 'GET', path, { key })
        expect(response.status, path).toBe(404)
        expect(response.body.error.code).toBe('not_found')
      }
    }
  })

  it('sets X-Request-Id on every response and never leaks a stack trace', async () => {
    const responses = [await api().get('/v1/merchants/me'), await call(base, 'GET', '/v1/nothing')]
    for (const response of responses) {
      expect(response.headers.get('x-request-id')).toMatch(/^req_/)
      expect(JSON.stringify(response.body)).not.toMatch(/at .*\.(js|ts):\d+/)
    }
  })

  it('answers /_sim/health without a key', async () => {
    const response = await call(base, 'GET', '/_sim/health')
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ status: 'ok' })
  })
})
