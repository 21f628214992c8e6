import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

/**
 * The most of a receiver's answer Bula reads, in the simulator's deliveries
 * and in `bula listen`: a receiver that answers gigabytes costs nothing
 * (docs/webhooks.md, "Delivery").
 */
export const MAX_ANSWER_BYTES = 64 * 1024

/**
 * POSTs to a receiver and reads at most `limit` bytes of its answer (0: the
 * status line only); whatever it still sends is not read, and the connection
 * goes. Redirects are not followed: a receiver must answer at its own URL.
 * `signal` (a timeout) covers the answer's body too, and an answer that stops
 * coming keeps what arrived: the status line already said how it went.
 *
 * Sent with node:http, not fetch: fetch refuses the ports browsers block
 * (6000, 6665–6669, 10080 and more: "bad port"), where a receiver may well
 * listen and the real service would deliver. A failure to connect or send is
 * thrown as fetch throws it, an Error whose `cause` is Node's (its `code`
 * says which: ECONNREFUSED, ECONNRESET); the timeout as the signal's reason.
 */
export function postReadingAtMost(
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal },
  limit = MAX_ANSWER_BYTES,
): Promise<{ status: number; text: string }> {
  const { signal } = request
  if (signal.aborted) return Promise.reject(signal.reason as Error)
  const target = new URL(url)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const outgoing = send(target, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      signal,
    })
    let answered = false
    outgoing.on('error', (error) => {
      // Once the status line is in, the answer's own close settles the result.
      if (!answered) reject(signal.aborted ? (signal.reason as Error) : new Error('request failed', { cause: error }))
    })
    outgoing.on('response', (response) => {
      answered = true
      const chunks: Buffer[] = []
      let size = 0
      let ended = false
      const keep = (chunk: Buffer): void => {
        chunks.push(chunk)
        size += chunk.length
        if (size >= limit) response.destroy()
      }
      response.on('data', keep)
      response.on('end', () => {
        ended = true
      })
      // After the end, or the limit, or the timeout: an answer read to its end keeps its connection for the next POST.
      response.on('close', () => {
        if (!ended) outgoing.destroy()
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).subarray(0, limit).toString('utf8') })
      })
      response.on('error', () => {
        // the timeout while reading: 'close' follows and keeps what arrived
      })
      if (limit === 0) response.destroy()
    })
    outgoing.end(request.body)
  })
}
