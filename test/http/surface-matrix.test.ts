import { beforeAll, describe, expect, it } from 'vitest'
import { exchange } from '../helpers/exchange.js'
import { HOUR, call, client, signupMerchant, unlockLive, useTestServer } from '../helpers/http.js'

// The surface matrix (docs/security.md, "Every route, every hostile input"): every route of /openapi.json, and the
// dashboard's, sent each kind of hostile input, held to what /v1 answers for that kind (docs/simulator.md, "Errors").

interface Operation {
  method: string
  /** As documented: `/v1/invoices/{id}`. */
  path: string
  auth: 'none' | 'secret' | 'secret-or-publishable'
  takesBody: boolean
}

let operations: Operation[]
/** The merchant's own test keys, one revoked and one past its rotation overlap, and its live key. */
const keys = { secret: '', publishable: '', revoked: '', pastOverlap: '', live: '', otherMerchant: '' }
/** An id of the merchant's own test object for each path parameter, so that another key's 404 is about the key. */
let ownIds: Record<string, string>

const server = useTestServer()
const baseUrl = () => server().baseUrl
let idempotency = 0
const fresh = () => ({ 'idempotency-key': `surface-matrix-${++idempotency}` })

beforeAll(async () => {
  const document = (await call(baseUrl(), 'GET', '/openapi.json')).body
  type Documented = { security?: Record<string, unknown>[]; requestBody?: unknown; responses: Record<string, unknown> }
  operations = Object.entries(document.paths as Record<string, Record<string, Documented>>).flatMap(([path, item]) =>
    Object.entries(item)
      // A path's catch-all (the read-only Payouts' other methods) answers 405 whatever is sent.
      .filter(([, operation]) => !('405' in operation.responses))
      .map(([method, operation]) => {
        const schemes = (operation.security ?? []).flatMap((scheme) => Object.keys(scheme))
        const auth = schemes.length === 0 ? 'none' : schemes.includes('publishableKey') ? 'secret-or-publishable' : 'secret'
        return { method: method.toUpperCase(), path, auth, takesBody: 'requestBody' in operation || method !== 'get' } as Operation
      }),
  )

  const { keys: own } = await signupMerchant(baseUrl())
  Object.assign(keys, own)
  const api = client(baseUrl(), own.secret)
  const revoked = (await api.post('/api-keys', { type: 'secret' })).body.key
  await api.post(`/api-keys/${revoked.id}/revoke`)
  keys.revoked = revoked.plaintext
  const rotated = (await api.post('/api-keys', { type: 'secret' })).body.key
  await api.post(`/api-keys/${rotated.id}/rotate`)
  keys.pastOverlap = rotated.plaintext
  const session = (await api.post('/v1/checkout-sessions', { amount: 1000, currency: 'FJD' }, { headers: fresh() })).body
  const invoice = (await api.post('/v1/invoices', { customerName: 'Test', dueDate: '2027-12-31', items: [{ description: 'X', quantity: 1, unitPrice: 100 }] }, { headers: fresh() })).body
  const endpoint = (await api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })).body.endpoint
  const event = (await api.get('/_sim/events')).body.data[0]
  const key = (await api.post('/api-keys', { type: 'secret' })).body.key
  const fault = (await api.post('/_sim/faults', { route: 'GET /v1/payouts/{id}', action: 'lose_response', probability: 0 })).body.fault
  keys.live = (await unlockLive(baseUrl(), own.secret)).secret
  // The rotated key's 72-hour overlap ends; the session and the rest stay the merchant's.
  await api.post('/_sim/clock/advance', { ms: 73 * HOUR })
  keys.otherMerchant = (await signupMerchant(baseUrl())).keys.secret
  ownIds = {
    'checkout-sessions': session.id,
    invoices: String(invoice.id),
    'webhook-endpoints': endpoint.id,
    events: event.event_id,
    'api-keys': key.id,
    faults: fault.id,
    payouts: 'po_none',
  }
})

/** The path with the merchant's own object in each parameter. */
const withOwnIds = (path: string): string => path.replace(/\/([a-z-]+)\/\{[^}]+\}/g, (_match, collection: string) => `/${collection}/${ownIds[collection] ?? 'probe'}`)

/** One raw request: no conformance check, so that what is not documented (OPTIONS) can be asked too. */
async function raw(method: string, path: string, { key, body, type }: { key?: string; body?: string; type?: string } = {}) {
  const headers: Record<string, string> = fresh()
  if (key) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = type ?? 'application/json'
  const response = await exchange(`${baseUrl()}${path}`, method, headers, body)
  let parsed: { error?: { code?: string; message?: string; param?: string } } | undefined
  try {
    parsed = JSON.parse(response.text)
  } catch {
    // not JSON: the row says so
  }
  return {
    status: response.status,
    code: parsed?.error?.code ?? `(${response.headers.get('content-type') ?? 'no body'})`,
    message: parsed?.error?.message,
    param: parsed?.error?.param,
    text: response.text,
  }
}

describe('the key walls, on every route', () => {
  it('answers every key that does not authenticate as /v1 does: 401 missing_api_key or invalid_api_key, and a publishable key 403', async () => {
    const cases: Array<{ label: string; key: () => string | undefined; status: number; code: string; skip?: (operation: Operation) => boolean }> = [
      { label: 'no key', key: () => undefined, status: 401, code: 'missing_api_key' },
      { label: 'Bearer junk', key: () => 'junk', status: 401, code: 'invalid_api_key' },
      { label: 'revoked key', key: () => keys.revoked, status: 401, code: 'invalid_api_key' },
      { label: 'key past its overlap', key: () => keys.pastOverlap, status: 401, code: 'invalid_api_key' },
      { label: 'publishable key', key: () => keys.publishable, status: 403, code: 'publishable_key_forbidden', skip: (operation) => operation.auth !== 'secret' },
    ]
    const wrong: string[] = []
    let requests = 0
    for (const operation of operations.filter((candidate) => candidate.auth !== 'none')) {
      for (const { label, key, status, code, skip } of cases) {
        if (skip?.(operation)) continue
        requests++
        const answer = await raw(operation.method, withOwnIds(operation.path), { key: key(), body: operation.takesBody ? '{}' : undefined })
        if (answer.status !== status || answer.code !== code) wrong.push(`${operation.method} ${operation.path} with ${label}: ${answer.status} ${answer.code}`)
      }
    }
    expect(requests).toBeGreaterThan(250)
    expect(wrong).toEqual([])
  })

  it('answers another merchant\'s key and the other mode\'s key 404 for every object of this merchant, on every route with an id', async () => {
    const wrong: string[] = []
    for (const operation of operations.filter((candidate) => candidate.path.includes('{') && candidate.auth !== 'none')) {
      for (const [label, key] of [['another merchant\'s key', keys.otherMerchant], ['the live key', keys.live]] as const) {
        const path = withOwnIds(operation.path)
        const answer = await raw(operation.method, path, { key, body: operation.takesBody ? '{}' : undefined })
        // 400 only where the body is refused before the lookup (a form the route validates first), never the object's state.
        if (![400, 404].includes(answer.status) || (answer.status === 400 && answer.code !== 'invalid_request')) wrong.push(`${operation.method} ${path} with ${label}: ${answer.status} ${answer.code}`)
      }
    }
    expect(wrong).toEqual([])
  })
})

describe('hostile bodies, on every route that takes one', () => {
  it('answers each as /v1 does: 400 invalid_request, 413 payload_too_large, 415 unsupported_media_type; never a 500', async () => {
    const cases: Array<{ label: string; body: string; type?: string; status: number; code: string; param?: string }> = [
      { label: 'malformed JSON', body: '{"a":', status: 400, code: 'invalid_request' },
      { label: 'a JSON array', body: '[]', status: 400, code: 'invalid_request' },
      { label: 'null', body: 'null', status: 400, code: 'invalid_request' },
      { label: 'a JSON string', body: '"x"', status: 400, code: 'invalid_request' },
      { label: 'over 1 MiB', body: JSON.stringify({ a: 'x'.repeat(1024 * 1024) }), status: 413, code: 'payload_too_large' },
      { label: '10,000 levels deep', body: '['.repeat(10_000) + ']'.repeat(10_000), status: 400, code: 'invalid_request' },
      { label: 'text/plain', body: '{}', type: 'text/plain', status: 415, code: 'unsupported_media_type', param: 'Content-Type' },
      { label: 'form-encoded', body: 'a=1', type: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type', param: 'Content-Type' },
      // Every charset but UTF-8: one body-parser refuses itself, one it would decode (as garbage: the bytes are UTF-8).
      { label: 'charset=latin1', body: '{}', type: 'application/json; charset=latin1', status: 400, code: 'invalid_request', param: 'Content-Type' },
      { label: 'charset=utf-16', body: '{}', type: 'application/json; charset=utf-16', status: 400, code: 'invalid_request', param: 'Content-Type' },
    ]
    // The one route that takes more than 1 MiB (a merchant's export, up to 16 MiB: test/http/state.test.ts) reads the
    // body, and refuses it as no state file.
    const takesMore = (operation: Operation) => `${operation.method} ${operation.path}` === 'POST /_sim/state/import'
    // This merchant has live keys: its test key is refused these before the body is read (403 live_key_required,
    // trust-state.test.ts), so the live key sends their bodies.
    const needsLiveKey = new Set(['POST /_sim/verification', 'POST /_sim/verification/reject', 'POST /_sim/payouts/fail-next'])
    const keyFor = (operation: Operation) => (needsLiveKey.has(`${operation.method} ${operation.path}`) ? keys.live : keys.secret)
    const wrong: string[] = []
    for (const operation of operations.filter((candidate) => candidate.method !== 'GET')) {
      for (const { label, body, type, ...expected } of cases) {
        const { status, code, param } = label === 'over 1 MiB' && takesMore(operation) ? { status: 400, code: 'invalid_request', param: undefined } : expected
        const answer = await raw(operation.method, withOwnIds(operation.path), { key: keyFor(operation), body, type })
        if (answer.status !== status || answer.code !== code || (param !== undefined && answer.param !== param) || answer.text.includes('    at ')) {
          wrong.push(`${operation.method} ${operation.path} with ${label}: ${answer.status} ${answer.code} ${answer.param}`)
        }
      }
    }
    expect(wrong).toEqual([])
  })
})

describe('methods a path does not take', () => {
  it('answers OPTIONS as any other such method (TRACE): a JSON 404 not_found naming the whole path, not Express\'s own 200 text/plain listing the methods without a key', async () => {
    const paths = [...new Set(operations.map((operation) => withOwnIds(operation.path))), '/dashboard', '/dashboard/settings', '/_sim/nope']
    const wrong: string[] = []
    for (const path of paths) {
      const [options, trace] = [await raw('OPTIONS', path), await raw('TRACE', path)]
      // The read-only Payouts take every method, OPTIONS too: the key first (401), then 405 with Allow.
      const expected = path.startsWith('/v1/payouts') ? { status: 401, code: 'missing_api_key' } : { status: 404, code: 'not_found' }
      for (const [method, answer] of [['OPTIONS', options], ['TRACE', trace]] as const) {
        // A router mounted at a path (`/_sim/state`, `/v1/merchants`) sees only the rest of it; the message names all of it.
        const message = expected.status === 404 ? `No route ${method} ${path}.` : answer.message
        if (answer.status !== expected.status || answer.code !== expected.code || answer.message !== message) {
          wrong.push(`${method} ${path}: ${answer.status} ${answer.code} ${answer.message}`)
        }
      }
    }
    expect(wrong).toEqual([])
    const payouts = await raw('OPTIONS', '/v1/payouts', { key: keys.secret })
    expect([payouts.status, payouts.code]).toEqual([405, 'method_not_allowed'])
    // With a key, and a query, which the message leaves off.
    for (const path of ['/_sim/clock', '/_sim/state', '/v1/merchants/me', '/v1/api-keys', '/api-keys', '/dashboard/settings']) {
      const answer = await raw('OPTIONS', `${path}?expand=all`, { key: keys.secret })
      expect([answer.status, answer.message]).toEqual([404, `No route OPTIONS ${path}.`])
    }
  })
})

describe('HEAD, on every route GET takes', () => {
  it('answers with GET\'s status and headers at once, the event and log streams too (which answered nothing while open)', async () => {
    const wrong: string[] = []
    for (const operation of operations.filter((candidate) => candidate.method === 'GET')) {
      const path = withOwnIds(operation.path)
      const started = Date.now()
      const answer = await Promise.race([
        raw('HEAD', path, { key: keys.secret }),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000)),
      ])
      if (answer === undefined) wrong.push(`HEAD ${path}: no answer in ${Date.now() - started} ms`)
      else if (answer.status >= 500) wrong.push(`HEAD ${path}: ${answer.status}`)
    }
    expect(wrong).toEqual([])
    const stream = await raw('HEAD', '/_sim/events/stream', { key: keys.secret })
    expect([stream.status, stream.code, stream.text]).toEqual([200, '(text/event-stream; charset=utf-8)', ''])
  })
})
