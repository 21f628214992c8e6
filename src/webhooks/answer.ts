/**
 * The most of a receiver's answer Bula reads, in the simulator's deliveries
 * and in `bula listen`: a receiver that answers gigabytes costs nothing
 * (docs/webhooks.md, "Delivery").
 */
export const MAX_ANSWER_BYTES = 64 * 1024

/**
 * POSTs to a receiver and reads at most MAX_ANSWER_BYTES of its answer;
 * whatever it still sends is not read, and the connection goes. Redirects
 * are not followed: a receiver must answer at its own URL. `signal` (a
 * timeout) covers the answer's body too. A refused connection or the
 * timeout is thrown, for the caller to describe.
 */
export async function postReadingAtMost(
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal },
): Promise<{ status: number; text: string }> {
  const enough = new AbortController()
  let wholeAnswerRead = false
  try {
    const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body, redirect: 'manual', signal: AbortSignal.any([enough.signal, request.signal]) })
    const { text, ended } = await readAtMost(response, MAX_ANSWER_BYTES)
    wholeAnswerRead = ended
    return { status: response.status, text }
  } finally {
    // An answer read to its end needs no abort: aborting builds a
    // DOMException and runs the signal's listeners for nothing, about a fifth
    // of a delivery's CPU on loopback (docs/performance.md).
    if (!wholeAnswerRead) enough.abort()
  }
}

/**
 * The start of an answer's body, at most `limit` bytes, and whether that was
 * the whole body (`ended`). An answer that stops coming (the timeout) keeps
 * what arrived: the receiver's status line already said how the delivery
 * went.
 */
async function readAtMost(response: Response, limit: number): Promise<{ text: string; ended: boolean }> {
  if (!response.body) return { text: '', ended: true }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let ended = false
  try {
    while (size < limit) {
      const { done, value } = await reader.read()
      if (done) {
        ended = true
        break
      }
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    // aborted by the timeout while reading
  } finally {
    if (!ended) void reader.cancel().catch(() => {})
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit)), ended }
}
