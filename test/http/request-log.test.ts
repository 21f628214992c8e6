import { describe, expect, it } from 'vitest'
import { client, signupMerchant, useTestServer } from '../helpers/http.js'

const server = useTestServer()
describe('the request log', () => {
  it('records every call of the merchant and mode, newest first, with filters', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const created = await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': 'log-1' } })
    await api.get('/v1/checkout-sessions/cs_missing')
    await api.get('/v1/merchants/me')
    const other = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    await other.get('/v1/merchants/me')

    const all = (await api.get('/_sim/logs')).body.data
    expect(all.map((e: { method: string; path: string; status: number }) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /v1/merchants/me 200',
      'GET /v1/checkout-sessions/cs_missing 404',
      'POST /v1/checkout-sessions 201',
    ])
    expect(all[2]).toMatchObject({ mode: 'test', idempotencyKey: 'log-1', requestId: created.headers.get('x-request-id') })
    expect(typeof all[2].latencyMs).toBe('number')
    expect((await api.get('/_sim/logs?status=4xx')).body.data.map((e: { status: number }) => e.status)).toEqual([404])
    expect((await api.get('/_sim/logs?status=201')).body.data).toHaveLength(1)
    expect((await api.get('/_sim/logs?path=/v1/checkout-sessions')).body.data).toHaveLength(2)
    expect((await api.get('/_sim/logs?status=4')).status).toBe(400)
  })

  it('streams calls as they finish', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const controller = new AbortController()
    const response = await fetch(`${server().baseUrl}/_sim/logs/stream?status=4xx`, { headers: { authorization: `Bearer ${keys.secret}` }, signal: controller.signal })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    await reader.read()
    await api.get('/v1/merchants/me')
    await api.get('/v1/invoices/42')
    let text = ''
    while (!text.includes('"status":404')) text += (await reader.read()).value
    controller.abort()
    expect(text).toContain('"path":"/v1/invoices/42"')
    expect(text).not.toContain('/v1/merchants/me')
  })
})
