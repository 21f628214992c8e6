import { describe, expect, it } from 'vitest'
import { compareRecordings, diffJson, normalizeSteps, TRANSFORMERS } from '../../src/conformance/index.js'

const BASE = 'http://127.0.0.1:4111'

describe('conformance transformers', () => {
  const steps = [
    {
      request: { method: 'POST', path: '/v1/checkout-sessions', auth: 'secret', idempotencyKey: 'conformance-aaa', body: { amount: 1500, expiresAt: 1_800_000_000_000 } },
      response: { status: 201, body: { id: 'cs_abcdefghij0123456789', hostedUrl: `${BASE}/pay/cs_abcdefghij0123456789`, expiresAt: 1_800_000_000_000, metadata: { orderId: 'ord_1' } } },
    },
    { request: { method: 'GET', path: '/v1/checkout-sessions/cs_abcdefghij0123456789', auth: 'secret' }, response: { status: 404, body: { error: { code: 'not_found', message: 'No such session 12:00' } } } },
    { request: { method: 'POST', path: '/v1/invoices/4711/send', auth: 'secret', idempotencyKey: 'conformance-aaa' }, response: { status: 200, body: { id: 4711, number: 'INV-0042', dueDate: '2030-01-31', pdfUrl: null, items: [{ quantity: 4711 }] } } },
    { request: { method: 'GET', path: '/v1/invoices?limit=1&starting_after=4711', auth: 'secret' }, response: { status: 200, body: { data: [], hasMore: false } } },
    { request: { method: 'POST', path: '/api-keys', auth: 'secret' }, response: { status: 200, body: { key: { id: 'key_x1234567890', plaintext: 'sk_test_ABCDEFGHIJKLMNOP', masked: 'sk_test_…MNOP' } } } },
    {
      delivery: {
        headers: { 'service-signature': `v1=${'a'.repeat(64)},v1=${'b'.repeat(64)}`, 'service-timestamp': '1800000000', 'x-service-event-id': 'evt_0123456789abcdef' },
        body: { event_id: 'evt_0123456789abcdef', type: 'checkout_session.cancelled', data: { object: { id: 'cs_abcdefghij0123456789', invoiceNumber: 'INV-0042', quote: { rate: '2.25', asOf: 1 }, amount: 2250, hostedUrl: 'x' } } },
      },
    },
    { sim: 'advance the clock 1h' },
  ]
  const [created, missing, sent, listed, key, delivery, sim] = normalizeSteps(steps, { baseUrl: BASE }) as Record<string, any>[] // eslint-disable-line @typescript-eslint/no-explicit-any -- reading the normalized JSON

  it('gives an id the same placeholder wherever it appears again: bodies, paths, payloads', () => {
    expect(created!.response.body.id).toBe('<id:1>')
    expect(missing!.request.path).toBe('/v1/checkout-sessions/<id:1>')
    expect(delivery!.delivery.body.data.object.id).toBe('<id:1>')
    expect(created!.response.body.metadata.orderId).toBe('<id:2>')
  })

  it('replaces integer Invoice ids in paths, bodies and starting_after, but not other numbers', () => {
    expect(sent!.request.path).toBe('/v1/invoices/<id:3>/send')
    expect(sent!.response.body.id).toBe('<id:3>')
    expect(sent!.response.body.items[0].quantity).toBe(4711)
    expect(listed!.request.path).toBe('/v1/invoices?limit=1&starting_after=<id:3>')
  })

  it('replaces times, dates, URLs, messages, secrets, invoice numbers, keys and signatures', () => {
    expect(created!.request.body.expiresAt).toBe('<timestamp>')
    expect(created!.response.body).toMatchObject({ expiresAt: '<timestamp>', hostedUrl: '<url>' })
    expect(created!.request.idempotencyKey).toBe('<idempotency-key:1>')
    expect(sent!.request.idempotencyKey).toBe('<idempotency-key:1>')
    expect(missing!.response.body.error).toEqual({ code: 'not_found', message: '<message>' })
    expect(sent!.response.body).toMatchObject({ number: '<invoice-number:1>', dueDate: '<date>', pdfUrl: null })
    expect(delivery!.delivery.body.data.object.invoiceNumber).toBe('<invoice-number:1>')
    expect(key!.response.body.key).toEqual({ id: '<id:4>', plaintext: '<secret:1>', masked: '<masked-key>' })
    expect(delivery!.delivery.headers).toEqual({ 'service-signature': 'v1=<signature>,v1=<signature>', 'service-timestamp': '<unix-seconds>', 'x-service-event-id': '<id:5>' })
    expect(delivery!.delivery.body.data.object).toMatchObject({ amount: '<converted-amount>', quote: { rate: '<rate>', asOf: '<timestamp>' } })
    expect(sim).toEqual({ sim: 'advance the clock 1h' })
  })

  it('names and describes every transformer for docs/conformance.md', () => {
    for (const transformer of TRANSFORMERS) expect(transformer.description.length, transformer.name).toBeGreaterThan(20)
    expect(new Set(TRANSFORMERS.map((transformer) => transformer.name)).size).toBe(TRANSFORMERS.length)
  })
})

describe('conformance comparison', () => {
  it('reports each changed, missing and new value by JSON path', () => {
    const recorded = { steps: [{ response: { status: 400, body: { code: 'a', gone: 1, list: [1, 2] } } }] }
    const actual = { steps: [{ response: { status: 201, body: { code: 'a', added: true, list: [1] } } }] }
    expect(diffJson('x/y', recorded, actual).map((difference) => difference.message)).toEqual([
      'steps[0].response.status: 400 → 201',
      'steps[0].response.body.gone: missing, was 1',
      'steps[0].response.body.list[1]: missing, was 2',
      'steps[0].response.body.added: new, true',
    ])
  })

  it('reports a skipped case once, not each step it did not take', () => {
    const recording = { case: 'x/y', title: 't', outcome: 'pass' as const, steps: [{ sim: 'a' }, { sim: 'b' }] }
    expect(compareRecordings('x/y', recording, { ...recording, outcome: 'skip', reason: 'needs /_sim', steps: [] })).toEqual([
      expect.objectContaining({ path: 'outcome', message: 'outcome: pass → skip (needs /_sim)' }),
    ])
    expect(compareRecordings('x/y', recording, recording)).toEqual([])
  })
})
