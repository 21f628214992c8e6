import { request } from 'node:http'
import { connect } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the server answered
  json: any
}

/**
 * One request to `baseUrl` with this `Host` header. fetch (undici) will not
 * send a Host of our choosing, and a DNS-rebinding page's requests differ
 * from ours only there.
 */
export function requestWithHost(
  baseUrl: string,
  host: string,
  options: { method?: string; path: string; key?: string; body?: string; headers?: Record<string, string> },
): Promise<RawResponse> {
  const url = new URL(options.path, baseUrl)
  const headers: Record<string, string> = { host, ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined) headers['content-type'] ??= 'application/json'
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? 'GET', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
      })
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** An HTTP/1.0 request with no Host header at all, as raw bytes; resolves with the status line. */
export function requestWithoutHost(baseUrl: string, path: string): Promise<{ statusLine: string; text: string }> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('end', () => resolve({ statusLine: text.split('\r\n')[0] ?? '', text }))
    socket.on('error', reject)
  })
}
