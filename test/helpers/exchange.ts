import http from 'node:http'

/**
 * Connections are kept between calls, but an idle one is closed after 2 s:
 * well before a simulator closes it (Node's 5 s keep-alive timeout), so a
 * call never goes out on a connection the server is closing (undici keeps
 * the same margin).
 */
const agent = new http.Agent({ keepAlive: true, timeout: 2_000 })

/**
 * One request and its whole answer over node:http, for call()
 * (test/helpers/http.ts) and the requests that set their own Host
 * (test/helpers/host-request.ts). fetch() cost a test worker several times
 * the CPU per request (undici's objects, web streams, abort signals), and
 * the HTTP and fuzz suites send tens of thousands (docs/performance.md, "The
 * test suite"). Like fetch it sends `accept: *\/*`; unlike it, it follows no
 * redirect, which no API route answers with.
 */
export function exchange(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    // Content-Length as fetch sends it: node:http would send a DELETE's body without one, which then is no body.
    const length: Record<string, string> = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }
    const request = http.request(url, { method, agent, headers: { accept: '*/*', ...length, ...headers } }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', reject)
      response.on('end', () => {
        const answered = new Headers()
        for (let i = 0; i < response.rawHeaders.length; i += 2) answered.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!)
        resolve({ status: response.statusCode!, headers: answered, text: Buffer.concat(chunks).toString('utf8') })
      })
    })
    request.on('error', reject)
    request.end(body)
  })
}
