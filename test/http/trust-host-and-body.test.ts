import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { call, client, signupMerchant, startTestServer } from '../helpers/http.js'

// Contract §10, last bullet: `__proto__` keys in bodies.

let server: RunningServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

let counter = 0
const idempotent = () => ({ headers: { 'idempotency-key': `trust-${++counter}` } })

describe('__proto__ keys in JSON bodies', () => {
  const post = (path: string, key: string, rawBody: string, headers: Record<string, string> = {}) =>
    call(server.baseUrl, 'POST', path, { key, rawBody, headers })

  it('refuses one at the top level, on a route that reads no field of its body', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const response = await post('/_sim/dashboard/login-links', keys.secret, '{"__proto__":{"p":"q"}}')
    expect(response.status).toBe(400)
    expect(response.body.error).toEqual({ code: 'invalid_request', param: '__proto__', message: expect.stringContaining('`__proto__`') })
  })

  it('refuses one in metadata instead of dropping it, and creates nothing', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const response = await post('/v1/checkout-sessions', keys.secret, '{"amount":100,"currency":"FJD","metadata":{"__proto__":"x","a":"b"}}', idempotent().headers)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'metadata.__proto__' })
    expect(response.body.error.message).toContain('metadata.__proto__')
    expect((await client(server.baseUrl, keys.secret).get('/v1/checkout-sessions')).body.data).toEqual([])
  })

  it('refuses one inside an items array, naming the index', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const body = '{"customerName":"Nadi Hotel","dueDate":"2030-01-31","items":[{"description":"Mats","quantity":1,"unitPrice":500,"__proto__":{"unitPrice":0}}]}'
    const response = await post('/v1/invoices', keys.secret, body, idempotent().headers)
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'items[0].__proto__' })
  })

  it('refuses one deep in a state import, which would otherwise be stored without it', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const api = client(server.baseUrl, keys.secret)
    await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD', metadata: { order: '1' } }, idempotent())
    const state = await api.get('/_sim/state')
    const body = JSON.stringify(state.body).replace('"metadata":{"order":"1"}', '"metadata":{"__proto__":{"polluted":"yes"},"order":"1"}')
    expect(body).toContain('__proto__')
    const response = await post('/_sim/state/import', keys.secret, body)
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe('collections.checkoutSessions[0].metadata.__proto__')
  })

  it('keeps every other key as given, constructor and prototype too', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const metadata = { constructor: 'c', prototype: 'p', toString: 't', hasOwnProperty: 'h' }
    const response = await post('/v1/checkout-sessions', keys.secret, JSON.stringify({ amount: 100, currency: 'FJD', metadata }), idempotent().headers)
    expect(response.status).toBe(201)
    expect(response.body.metadata).toEqual(metadata)
  })

  it('answers a 200,000-deep body with 400 naming the depth limit, never 500', async () => {
    const { merchant, keys } = await signupMerchant(server.baseUrl)
    const state = (await client(server.baseUrl, keys.secret).get('/_sim/state')).body
    // Inside a stored document, where only the store's JSON.stringify would have walked it (and overflowed).
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`
    const body = JSON.stringify(state).replace(`"id":"${merchant.id}"`, `"id":"${merchant.id}","deep":${deep}`)
    expect(body).toContain('"deep"')
    const response = await post('/_sim/state/import', keys.secret, body)
    expect(response.status).toBe(400)
    expect(response.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/more than \d+ levels deep/) })
  })

  it('walks a 300,000-item array of objects without overflowing', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const wide = `[${Array.from({ length: 300_000 }, () => '{}').join(',')},{"__proto__":1}]`
    const response = await post('/v1/checkout-sessions', keys.secret, `{"amount":100,"currency":"FJD","metadata":{"a":${wide}}}`, idempotent().headers)
    expect(response.status).toBe(400)
    expect(response.body.error.param).toBe('metadata.a[300000].__proto__')
  })

  it('keeps the 1 MiB limit and the malformed-JSON answer', async () => {
    const { keys } = await signupMerchant(server.baseUrl)
    const tooLarge = await post('/_sim/dashboard/login-links', keys.secret, `{"a":"${'x'.repeat(1024 * 1024)}"}`)
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.body.error.code).toBe('payload_too_large')
    const malformed = await post('/_sim/dashboard/login-links', keys.secret, '{"__proto__":')
    expect(malformed.status).toBe(400)
    expect(malformed.body.error).toEqual({ code: 'invalid_request', message: 'The body is not valid JSON.' })
  })
})
