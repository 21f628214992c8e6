// A webhook receiver for Bula and the FJD payment service it simulates.
// Node.js 22 or later, nothing to install: node receiver.mjs (see README.md).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const secret = process.env.BULA_WEBHOOK_SECRET
if (!secret) {
  console.error('Set BULA_WEBHOOK_SECRET to your endpoint\'s whsec_ signing secret (`npx bula listen --print-secret` prints one).')
  process.exit(1)
}
const port = Number(process.env.PORT ?? 4242)
const PATH = '/webhooks'
/** A delivery older than this is refused: a captured one cannot be replayed later (spec, Delivery 2). */
const TOLERANCE_SECONDS = 5 * 60
const MAX_BODY_BYTES = 1024 * 1024
/** Event ids already taken in, one per line: retries re-send the same event_id, also after this receiver restarts. */
const SEEN_FILE = process.env.BULA_SEEN_FILE ?? 'processed-events.txt'
const seen = new Set(existsSync(SEEN_FILE) ? readFileSync(SEEN_FILE, 'utf8').split('\n').filter(Boolean) : [])

/**
 * Service-Signature is `v1=<hex>`, or two of them during the 72 hours after
 * a secret rotation; each is HMAC-SHA256 of `<Service-Timestamp>.<raw body>`.
 * Any one made with our secret will do. Returns why a delivery is refused,
 * or null when it is genuine.
 */
function refusal(rawBody, headers) {
  const timestamp = String(headers['service-timestamp'] ?? '')
  const signatures = String(headers['service-signature'] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3))
  if (!/^[0-9]+$/.test(timestamp) || signatures.length === 0) return 'missing or malformed Service-Signature or Service-Timestamp'
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return 'Service-Timestamp is more than 5 minutes away'
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest()
  // timingSafeEqual: a comparison that stops at the first wrong byte would tell an attacker how much was right.
  const genuine = signatures.some((hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, 'hex'), expected))
  return genuine ? null : 'no signature matches'
}

const server = createServer((req, res) => {
  const answer = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  if (req.method !== 'POST' || req.url !== PATH) return answer(404, { error: 'not found' })
  // The raw bytes, before any JSON parsing: the signature covers exactly what was sent.
  const chunks = []
  let size = 0
  req.on('data', (chunk) => {
    size += chunk.length
    if (size > MAX_BODY_BYTES) req.destroy()
    else chunks.push(chunk)
  })
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks)
    const why = refusal(rawBody, req.headers)
    // 4xx: the delivery is not genuine, or too old; a 5xx would say this receiver failed, and it would be retried.
    if (why) {
      console.warn(`refused a delivery: ${why}`)
      return answer(400, { error: why })
    }
    let event
    try {
      event = JSON.parse(rawBody.toString('utf8'))
    } catch {
      return answer(400, { error: 'the body is not JSON' })
    }
    // The id from the signed body, not the X-Service-Event-Id header, which the signature does not cover.
    if (typeof event?.event_id !== 'string') return answer(400, { error: 'the body has no event_id' })
    if (seen.has(event.event_id)) return answer(200, { received: true, duplicate: true })
    // Work, then record the id, then answer: if the work fails or this receiver dies on the way, no 2xx went out
    // and the sender delivers the event again. Recording first lost it: every retry was answered "duplicate".
    // Work that takes more than a moment belongs on a queue: store the event, answer, then work from the queue
    // (docs/webhooks-receiver.md, rule 5), since a slow answer looks like a failure to the sender.
    try {
      handle(event)
    } catch (error) {
      // One event's failure must not stop the receiver, nor be answered 2xx: the sender retries a 5xx.
      console.error(`could not handle ${event.event_id}: ${error instanceof Error ? error.message : String(error)}`)
      return answer(500, { error: 'could not handle the event: deliver it again' })
    }
    appendFileSync(SEEN_FILE, `${event.event_id}\n`)
    seen.add(event.event_id)
    answer(200, { received: true })
  })
})

/** Payloads are additive: read the fields you need, and ignore event types you do not handle. */
function handle(event) {
  const object = event.data.object
  switch (event.type) {
    case 'checkout_session.succeeded':
      console.log(`${event.mode}: paid ${object.id} (FJ$${(object.amount / 100).toFixed(2)}), order ${object.metadata?.order_id ?? '-'}: fulfil it`)
      break
    case 'checkout_session.failed':
    case 'checkout_session.cancelled':
      console.log(`${event.mode}: ${object.id} ${object.status}: release the order`)
      break
    default:
      console.log(`${event.mode}: ${event.type} ${event.event_id}: not handled here`)
  }
}

server.listen(port, () => console.log(`Receiver listening on http://localhost:${server.address().port}${PATH}`))
