import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BulaClient, MAX_ANSWER_BYTES, newIdempotencyKey, retryDelay } from '../../src/client/bula-client.js'
import { answerForever } from '../helpers/endless-answer.js'
import { ApiError } from '../../src/errors.js'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

interface Reply {
  status: number
  body: string
  headers?: Record<string, string>
  /**
   * Break the connection instead of answering, or never answer; or answer
   * more than the client reads: a Content-Length over it (then stall), or a
   * chunked JSON string past it, as long as the client keeps reading.
   */
  fault?: 'reset' | 'hang' | 'huge-length' | 'huge-stream'
}

/** A stand-in server answering each request with the next queued reply, then with `reply`. */
let server: Server
let baseUrl: string
let seen: Seen[]
let reply: Reply
let queue: Reply[]

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      const next = queue.shift() ?? reply
      if (next.fault === 'reset') return request.socket.destroy()
      if (next.fault === 'hang') return
      if (next.fault === 'huge-length') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_ANSWER_BYTES + 1) })
        return response.write('{"x":"')
      }
      if (next.fault === 'huge-stream') return void (streamed = answerForever(response))
      response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
      response.end(next.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

/** How much the current endless answer (answerForever) has sent. */
let streamed = (): number => 0

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  seen = []
  queue = []
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
    // A Retry-After beyond maxRetryAfterMs (15 s by default) is not waited for: the 429 is the answer.
    reply = {
      status: 429,
      body: JSON.stringify({ error: { code: 'rate_limited', message: 'Slow down.', param: 'p', type: 'rate_limit' } }),
      headers: { 'retry-after': '60' },
    }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).getMe())
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: 'Slow down.',
      param: 'p',
      type: 'rate_limit',
      headers: { 'retry-after': '60' },
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

  it('refuses an answer whose Content-Length is over the limit before reading it', async () => {
    reply = { status: 200, body: '', fault: 'huge-length' }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc', timeoutMs: 5_000 }).getMe())
    expect(error).toMatchObject({
      status: 200,
      code: 'unexpected_response',
      message: `GET ${baseUrl}/v1/merchants/me answered HTTP 200 with more than 64 MiB, the most bula reads of one answer. Is ${baseUrl} a bula simulator?`,
    })
    // Not sent again: a GET is retried after a broken connection, not after an answer too large to read.
    expect(seen).toHaveLength(1)
  })

  it('stops reading a chunked answer once it passes the limit', async () => {
    reply = { status: 200, body: '', fault: 'huge-stream' }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).getMe())
    expect(error).toMatchObject({ status: 200, code: 'unexpected_response', message: expect.stringContaining('with more than 64 MiB') })
    expect(seen).toHaveLength(1)
    // What the sockets' buffers held beyond the limit, not the gigabytes a server may keep sending.
    await expect.poll(streamed).toBeGreaterThan(MAX_ANSWER_BYTES)
    expect(streamed()).toBeLessThan(MAX_ANSWER_BYTES + 32 * 1024 * 1024)
  })

  it('stops reading an event stream\'s refusal once it passes the limit', async () => {
    reply = { status: 200, body: '', fault: 'huge-stream' }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).openEventStream())
    expect(error).toMatchObject({
      status: 200,
      code: 'unexpected_response',
      message: `GET ${baseUrl}/_sim/events/stream answered HTTP 200 with more than 64 MiB, the most bula reads of one answer. Is ${baseUrl} a bula simulator?`,
    })
    await expect.poll(streamed).toBeGreaterThan(MAX_ANSWER_BYTES)
    expect(streamed()).toBeLessThan(MAX_ANSWER_BYTES + 32 * 1024 * 1024)
  })

  const unavailable: Reply = { status: 503, body: JSON.stringify({ error: { code: 'storage_unavailable', message: 'disk full' } }) }

  it('retries a GET after a 503 and a 429 (waiting its Retry-After), then returns the answer', async () => {
    queue = [unavailable, { status: 429, body: JSON.stringify({ error: { code: 'rate_limited', message: 'Slow down.' } }), headers: { 'retry-after': '0' } }]
    reply = { status: 200, body: JSON.stringify({ now: 1, offsetMs: 0 }) }
    const lines: string[] = []
    expect(await new BulaClient({ baseUrl, apiKey: 'sk_test_abc', log: (line) => lines.push(line) }).getClock()).toEqual({ now: 1, offsetMs: 0 })
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /_sim/clock', 'GET /_sim/clock', 'GET /_sim/clock'])
    expect(lines.filter((line) => line.startsWith('↻'))).toEqual([`↻ retry 1 of GET ${baseUrl}/_sim/clock after 503`, `↻ retry 2 of GET ${baseUrl}/_sim/clock after 429`])
    expect(lines.filter((line) => line.startsWith('←')).map((line) => line.split(' ')[1])).toEqual(['503', '429', '200'])
  })

  it('retries a write with an Idempotency-Key, sending the same key each time', async () => {
    queue = [unavailable]
    reply = { status: 201, body: JSON.stringify({ id: 'cs_1' }) }
    const key = newIdempotencyKey()
    await new BulaClient({ baseUrl, apiKey: 'sk_test_abc' }).request({ method: 'POST', path: '/v1/checkout-sessions', body: { amount: 100 }, idempotencyKey: key })
    expect(seen).toHaveLength(2)
    expect(seen.map((request) => [request.headers['idempotency-key'], request.body])).toEqual([
      [key, '{"amount":100}'],
      [key, '{"amount":100}'],
    ])
  })

  it('retries a GET whose connection broke before the answer', async () => {
    queue = [{ status: 0, body: '', fault: 'reset' }]
    reply = { status: 200, body: JSON.stringify({ status: 'ok', version: '1' }) }
    expect(await new BulaClient({ baseUrl }).health()).toEqual({ status: 'ok', version: '1' })
    expect(seen).toHaveLength(2)
  })

  // A simulator stopped while a create was in it: the first try broke after it was sent, the retry found no one. The
  // create may have been made, so this is network_error (the CLI then names the key to retry with), not connection_failed.
  it('reports a broken try whose retry found no simulator as network_error, naming both, and the refused address alone as connection_failed', async () => {
    const dying = createServer((request) => {
      request.socket.destroy()
      dying.close()
    })
    await new Promise<void>((resolve) => dying.listen(0, '127.0.0.1', resolve))
    const dyingUrl = `http://127.0.0.1:${(dying.address() as AddressInfo).port}`
    const client = new BulaClient({ baseUrl: dyingUrl, apiKey: 'sk_test_abc' })
    const create = { method: 'POST' as const, path: '/v1/checkout-sessions', body: { amount: 100 }, idempotencyKey: newIdempotencyKey() }
    const broken = await failure(client.request(create))
    expect(broken).toMatchObject({ status: 0, code: 'network_error' })
    expect(broken.message).toMatch(new RegExp(`^POST ${dyingUrl}/v1/checkout-sessions failed: a try ended with ECONNRESET, and the retry after it found no simulator\\. Could not reach the simulator at ${dyingUrl}\\.`))
    expect(await failure(client.request(create))).toMatchObject({ status: 0, code: 'connection_failed' })

    // A 429 refused the create, so a retry that then finds no simulator has nothing to hide: connection_failed.
    const limited = createServer((_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0', connection: 'close' })
      response.end(JSON.stringify({ error: { code: 'rate_limited', message: 'Slow down.' } }))
      limited.close()
    })
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve))
    const limitedUrl = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`
    expect(await failure(new BulaClient({ baseUrl: limitedUrl, apiKey: 'sk_test_abc' }).request(create))).toMatchObject({ status: 0, code: 'connection_failed' })
  })

  it('gives up after `retries` more tries with the last answer', async () => {
    reply = unavailable
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc', retries: 1 }).getMe())
    expect(error).toMatchObject({ status: 503, code: 'storage_unavailable' })
    expect(seen).toHaveLength(2)
  })

  it('gives up on a request with no answer after timeoutMs, as a timeout', async () => {
    reply = { status: 0, body: '', fault: 'hang' }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc', timeoutMs: 200, retries: 0 }).getMe())
    expect(error).toMatchObject({ status: 0, code: 'timeout', message: `GET ${baseUrl}/v1/merchants/me got no answer within 0.2 s.` })
  })

  it('sends a request that got no answer within timeoutMs only once, however many retries it may have', async () => {
    reply = { status: 0, body: '', fault: 'hang' }
    const error = await failure(new BulaClient({ baseUrl, apiKey: 'sk_test_abc', timeoutMs: 200, retries: 2 }).getMe())
    expect(error).toMatchObject({ status: 0, code: 'timeout' })
    expect(seen).toHaveLength(1)
  })

  it('waits 250 ms before the first retry, twice as long each time up to 2 s, or what Retry-After says', () => {
    expect([1, 2, 3, 4, 5].map((attemptCount) => retryDelay({ attemptCount, retryAfter: undefined, computedValue: 1000 }))).toEqual([250, 500, 1000, 2000, 2000])
    expect(retryDelay({ attemptCount: 1, retryAfter: 3000, computedValue: 3000 })).toBe(3000)
    expect(retryDelay({ attemptCount: 1, retryAfter: undefined, computedValue: 0 })).toBe(0)
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
      message: `Could not reach the simulator at http://127.0.0.1:${port}. Start it with \`npx bula serve --port ${port}\`.`,
    })
  })

  it('names the --host to start a simulator on another address inside the command it gives', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '::1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const error = await failure(new BulaClient({ baseUrl: `http://[::1]:${port}`, apiKey: 'sk_test_abc' }).getMe())
    expect(error).toMatchObject({ code: 'connection_failed', message: `Could not reach the simulator at http://[::1]:${port}. Start it with \`npx bula serve --port ${port} --host ::1\`.` })
  })

  it.each(['127.0.0.1:4111', 'ftp://x', 'not a url'])('refuses the base URL %j', (url) => {
    expect(() => new BulaClient({ baseUrl: url })).toThrow(ApiError)
  })

  it('keeps a path prefix in the base URL', async () => {
    await new BulaClient({ baseUrl: `${baseUrl}/sim/`, apiKey: 'sk_test_abc' }).getSettings()
    expect(seen[0]?.url).toBe('/sim/_sim/settings')
  })
})
