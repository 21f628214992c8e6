import { connect } from 'node:net'
import { exchange } from './exchange.js'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the server answered
  json: any
}

/**
 * One request to `baseUrl` with this `Host` header, which call() leaves out
 * of the answers check: a DNS-rebinding page's requests differ from ours
 * only there.
 */
export async function requestWithHost(
  baseUrl: string,
  host: string,
  options: { method?: string; path: string; key?: string; body?: string; headers?: Record<string, string> },
): Promise<RawResponse> {
  const headers: Record<string, string> = { host, ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined) headers['content-type'] ??= 'application/json'
  const answer = await exchange(new URL(options.path, baseUrl).href, options.method ?? 'GET', headers, options.body)
  let json: unknown
  try {
    json = JSON.parse(answer.text)
  } catch {
    json = undefined
  }
  return { status: answer.status, headers: Object.fromEntries(answer.headers), text: answer.text, json }
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
