import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BulaClient, newIdempotencyKey } from '../../src/client/bula-client.js'
import { ApiError } from '../../src/errors.js'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A stand-in server answering each request with the next queued reply. */
let server: Server
let baseUrl: string
let seen: Seen[]
let reply: { status: number; body: string; headers?: Record<string, string> }

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      response.end(reply.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  seen = []
  reply = { status: 200, body: '{}' }
})

const failure = (promise: Promise<unknown>): Promise<ApiError> =>
  promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(ApiError)
      return error as ApiError
    },
  )

describe('BulaClient', () => {
  it('sends the bearer key, JSON body and path, and returns the JSON body', async () => {
    reply = { status: 200, body: JSON.stringify({ key: { id: 'key_1' } }) }
    const client = new BulaClient({ baseUrl: `${baseUrl}/`, apiKey: 'sk_test_abc', userAgent: 'bula/test' })
    expect(await client.createApiKey({ type: 'publishable' })).toEqual({ key: { id: 'key_1' } })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/api-keys', body: '{"type":"publishable"}' })
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer sk_test_abc', 'user-agent': 'bula/test' })
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined()
  })

  it('encodes path parameters and sends no body when there is none', async () => {
    await new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).rotateApiKey('key/1 2')
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/api-keys/key%2F1%202/rotate', body: '' })
  })

  it('sends Idempotency-Key and query strings through request()', async () => {
    const key = newIdempotencyKey()
    await new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).request({
      method: 'GET',
      path: '/v1/checkout-sessions',
      query: { limit: 5, status: undefined, cursor: 'c1' },
      idempotencyKey: key,
    })
    expect(key).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen[0]?.url).toBe('/v1/checkout-sessions?limit=5&cursor=c1')
    expect(seen[0]?.headers['idempotency-key']).toBe(key)
  })

  it('calls the no-key routes without a key', async () => {
    reply = { status: 201, body: JSON.stringify({ merchant: {}, keys: {} }) }
    await new BulaClient({ baseUrl }).signup({ email: 'a@b.fj', name: 'A', tier: 'business' })
    expect(seen[0]?.headers.authorization).toBeUndefined()
  })

  it('refuses an authenticated call without a key, before any request', async () => {
    const error = await failure(new BulaClient({ baseUrl }).getMe())
    expect(error).toMatchObject({ status: 0, code: 'missing_api_key' })
    expect(error.message).toContain('bula login --api-key')
    expect(seen).toHaveLength(0)
  })

  it('turns an error envelope into an ApiError with status, param, type and Retry-After', async () => {
    reply = {
      status: 429,
      body: JSON.stringify({ error: { code: 'rate_limited', message: 'Slow down.', param: 'p', type: 'rate_limit' } }),
      headers: { 'retry-after': '7' },
    }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).getMe())
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: 'Slow down.',
      param: 'p',
      type: 'rate_limit',
      headers: { 'retry-after': '7' },
    })
    expect(seen).toHaveLength(1)
  })

  it('reports a response without an envelope as unexpected_response', async () => {
    reply = { status: 502, body: '<html>Bad gateway</html>' }
    expect(await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).getClock())).toMatchObject({
      status: 502,
      code: 'unexpected_response',
    })
  })

  it('does not retry a failed POST', async () => {
    reply = { status: 503, body: JSON.stringify({ error: { code: 'internal_error', message: 'down' } }) }
    await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).advanceClock({ ms: 1000 }))
    expect(seen).toHaveLength(1)
  })

  it('reports a simulator that is not running as connection_failed', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const error = await failure(new BulaClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_test_abc' }).getMe())
    expect(error).toMatchObject({
      status: 0,
      code: 'connection_failed',
      message: `Could not reach the simulator at http://127.0.0.1:${port}. Start it with \`bula serve\`.`,
    })
  })

  it.each(['127.0.0.1:4111', 'ftp://x', 'not a url'])('refuses the base URL %j', (url) => {
    expect(() => new BulaClient({ baseUrl: url })).toThrow(ApiError)
  })

  it('keeps a path prefix in the base URL', async () => {
    await new BulaClient({ baseUrl: `${baseUrl}/sim/`, apiKey: 'sk_test_abc' }).getSettings()
    expect(seen[0]?.url).toBe('/sim/_sim/settings')
  })
})
