import { once } from 'node:events'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { answerClientErrors } from '../../server/http/client-error.js'
import { useTestServer } from '../helpers/http.js'

// docs/simulator.md ("Errors"): a request Node's HTTP parser refuses before
// Express sees it (headers over Node's 16 KiB, bytes that are no HTTP)
// answers with the error envelope and an X-Request-Id, as every other refusal.

const logLines: string[] = []
const server = useTestServer({ logRequests: true, log: (line) => logLines.push(line) })

interface RawAnswer {
  statusLine: string
  headers: Record<string, string>
  body: string
}

/** Sends `bytes` on a fresh connection and reads until the server closes it. */
function sendRaw(bytes: string, baseUrl = server().baseUrl): Promise<RawAnswer> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2)
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      resolve({ statusLine, headers, body })
    })
  })
}

describe('requests Node cannot read', () => {
  it('answers headers over 16 KiB with 431 headers_too_large naming the limit, as JSON with a request id', async () => {
    const answer = await sendRaw(`GET /v1/merchants/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(answer.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large')
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': expect.stringMatching(/^req_/) })
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body))
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'headers_too_large', message: 'The request line and headers are larger than 16 KiB; send fewer or shorter headers.' },
    })
    expect(logLines).toContainEqual(expect.stringContaining(`431 ${answer.headers['x-request-id']}`))
  })

  it('answers a request that is not HTTP with 400 invalid_request', async () => {
    const answer = await sendRaw('HELLO THERE\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': expect.stringMatching(/^req_/) })
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(/^The request could not be read as HTTP/) } })
  })

  // Found by an adversarial pass: Express's router finds no path in these and answered with its own HTML 404.
  it.each(['http://[evil/v1/merchants/me', 'http://[::1/v1/merchants/me'])('answers the absolute target %s, whose host does not parse, with 400 invalid_request', async (target) => {
    const answer = await sendRaw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': expect.stringMatching(/^req_/) })
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_request', message: 'The request target is neither a path nor a URL that can be read.' } })
    expect(logLines).toContainEqual(expect.stringContaining(`GET (unreadable target) 400 ${answer.headers['x-request-id']}`))
  })

  it('answers a header with a character HTTP forbids with 400 invalid_request', async () => {
    const answer = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad: a\u0001b\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(JSON.parse(answer.body).error.code).toBe('invalid_request')
  })

  it('answers a body whose chunked encoding breaks with 400 invalid_request, while its route waits for the body', async () => {
    const answer = await sendRaw('POST /_sim/merchants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_request', message: 'The request could not be read as HTTP: Invalid character in chunk size.' } })
  })

  it('writes nothing of its own after a response already under way on the connection', async () => {
    // The first request is answered; the garbage pipelined behind it gets no second, made-up answer.
    const answer = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nHELLO THERE\r\n\r\n')
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 200 /)
    expect(answer.body).not.toContain('invalid_request')
  })
})

describe('the Host header, which Node would refuse on its own', () => {
  it('answers an HTTP/1.1 request without Host with 400 invalid_request naming Host, as JSON with a request id', async () => {
    // Node's own answer was a bare 400 with an empty body and no X-Request-Id.
    const answer = await sendRaw('GET /_sim/health HTTP/1.1\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': expect.stringMatching(/^req_/) })
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'invalid_request', message: 'An HTTP/1.1 request needs a Host header: send one naming the simulator, such as Host: 127.0.0.1.', param: 'Host' },
    })
  })

  it('answers two Host headers with 400 invalid_request, though the first names an allowed host', async () => {
    // Node kept the first and dropped the other: a proxy in front reading the other would route by a name the check never saw.
    const answer = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(answer.headers['x-request-id']).toMatch(/^req_/)
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_request', message: 'Send one Host header, not several.', param: 'Host' } })
  })

  it('counts a header however its name is cased: `Host` and `hOST` are two Host headers, `Authorization` and `AUTHORIZATION` two keys', async () => {
    const host = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nhOST: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(host.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(JSON.parse(host.body).error.message).toBe('Send one Host header, not several.')
    const authorization = await sendRaw('GET /v1/merchants/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_test_a\r\nAUTHORIZATION: Bearer sk_test_a\r\nConnection: close\r\n\r\n')
    expect(JSON.parse(authorization.body).error).toEqual({ code: 'invalid_api_key', message: 'Send one Authorization header, not several.' })
    // One Host whose name merely contains another header's name (`X-Host`) is not a second Host.
    const single = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Host: evil.example\r\nConnection: close\r\n\r\n')
    expect(single.statusLine).toBe('HTTP/1.1 200 OK')
  })

  it('checks the name of an absolute-form target, which HTTP has a server use instead of Host', async () => {
    // Before, Host alone was checked: `GET http://evil.example/…` with an allowed Host was answered.
    const rebound = await sendRaw('GET http://evil.example/_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(rebound.statusLine).toBe('HTTP/1.1 403 Forbidden')
    expect(JSON.parse(rebound.body).error).toMatchObject({ code: 'host_not_allowed', message: expect.stringContaining('Host "evil.example" is not allowed') })
    const { port } = new URL(server().baseUrl)
    const allowed = await sendRaw(`GET http://127.0.0.1:${port}/_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
    expect(allowed.statusLine).toBe('HTTP/1.1 200 OK')
  })

  it('names the path of an absolute-form target in a 404, at the end of the app and inside a router mounted at a path', async () => {
    const { port } = new URL(server().baseUrl)
    for (const [method, path] of [['PUT', '/_sim/clock'], ['OPTIONS', '/_sim/clock'], ['OPTIONS', '/_sim/state'], ['OPTIONS', '/v1/merchants/me'], ['OPTIONS', '']]) {
      const answer = await sendRaw(`${method} http://127.0.0.1:${port}${path}?a=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
      expect(JSON.parse(answer.body).error, `${method} ${path}`).toEqual({ code: 'not_found', message: `No route ${method} ${path || '/'}.` })
    }
    const asterisk = await sendRaw('OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(JSON.parse(asterisk.body).error).toEqual({ code: 'not_found', message: 'No route OPTIONS *.' })
  })
})

describe('requests Node would answer or drop without the app', () => {
  it('answers CONNECT with 404 not_found, as any method no route takes, where Node closed the connection without a word', async () => {
    const answer = await sendRaw('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 404 Not Found')
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': expect.stringMatching(/^req_/) })
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'not_found', message: 'No route CONNECT evil.example:443.' } })
  })

  it('answers a request with an Expect other than 100-continue as if it had none, which HTTP allows, where Node answered a bare 417', async () => {
    const answer = await sendRaw('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nConnection: close\r\n\r\n')
    expect(answer.statusLine).toBe('HTTP/1.1 200 OK')
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok' })
    const refused = await sendRaw('GET /v1/merchants/me HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nConnection: close\r\n\r\n')
    expect(refused.statusLine).toBe('HTTP/1.1 401 Unauthorized')
    expect(refused.headers['x-request-id']).toMatch(/^req_/)
  })
})

describe('errors Node raises on a connection without a parse', () => {
  /** A plain TCP server whose every connection meets the listener with `error`, as Node's request timer or a reset would. */
  async function serverRaising(error: Error & { code: string }): Promise<{ baseUrl: string; close: () => void }> {
    const answer = answerClientErrors({ log: () => {}, logRequests: false })
    const sockets = new Set<Socket>()
    const tcp = createServer((socket) => {
      sockets.add(socket)
      answer(error, socket)
    })
    tcp.listen(0, '127.0.0.1')
    await once(tcp, 'listening')
    return {
      baseUrl: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
      close: () => {
        for (const socket of sockets) socket.destroy()
        tcp.close()
      },
    }
  }

  it('answers a request that did not arrive in time with 408 request_timeout', async () => {
    const tcp = await serverRaising(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))
    try {
      const answer = await sendRaw('GET / HTTP/1.1\r\n', tcp.baseUrl)
      expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout')
      expect(JSON.parse(answer.body).error.code).toBe('request_timeout')
    } finally {
      tcp.close()
    }
  })

  it('writes nothing to a connection the client reset, and closes it', async () => {
    const tcp = await serverRaising(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
    try {
      const answer = await sendRaw('GET / HTTP/1.1\r\n', tcp.baseUrl)
      expect(answer).toEqual({ statusLine: '', headers: {}, body: '' })
    } finally {
      tcp.close()
    }
  })
})
