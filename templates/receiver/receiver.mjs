// A webhook receiver for Bula (and the FJD payment service it simulates).
// Run it with BULA_WEBHOOK_SECRET=whsec_... node receiver.mjs; see README.md.
import express from 'express'
import { verifyWebhook, WebhookVerificationError } from 'bula'

const secret = process.env.BULA_WEBHOOK_SECRET
if (!secret) {
  console.error('Set BULA_WEBHOOK_SECRET to the whsec_ signing secret (`bula listen` prints one).')
  process.exit(1)
}
const port = Number(process.env.PORT ?? 3000)

// Event ids already taken in. Retries re-send the same event_id, so a repeat
// is acknowledged and skipped. In memory for the sample: a real receiver
// records the event durably before it answers (a table keyed on event_id,
// or a job queue) and does the work from there, so a crash loses nothing.
const handled = new Set()

const app = express()

// express.raw keeps the body as the exact bytes received: the signature
// covers them, and JSON re-serialised by express.json() would not match.
app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  // express.raw leaves the body unset for any other content type.
  if (req.body === undefined) {
    res.status(400).json({ error: 'expected an application/json body' })
    return
  }
  let event
  try {
    event = verifyWebhook(req.body, req.headers, secret)
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error
    // 4xx: the delivery is not genuine (or is too old), which is not our fault.
    console.warn(`refused a delivery: ${error.code}: ${error.message}`)
    res.status(400).json({ error: error.code })
    return
  }

  // The id from the verified body, not the X-Service-Event-Id header, which
  // the signature does not cover.
  if (handled.has(event.event_id)) {
    res.status(200).json({ received: true, duplicate: true })
    return
  }
  handled.add(event.event_id)

  // Answer first, then work: a slow answer looks like a failure to the sender,
  // which then retries.
  res.status(200).json({ received: true })
  handle(event).catch((error) => console.error(`handling ${event.event_id} failed:`, error))
})

// Payloads are additive: read the fields you need and ignore the rest, and
// ignore event types you do not handle (new ones may be added).
async function handle(event) {
  const object = event.data.object
  switch (event.type) {
    case 'webhook.verified':
      console.log(`${event.mode}: endpoint ${object.id} is verified`)
      break
    case 'checkout_session.succeeded':
      console.log(`${event.mode}: paid ${object.id} (FJD ${(object.amount / 100).toFixed(2)}), order ${object.metadata.order_id ?? '-'}: fulfil it`)
      break
    case 'checkout_session.failed':
    case 'checkout_session.cancelled':
      console.log(`${event.mode}: ${object.id} ${object.status}: release the order`)
      break
    default:
      console.log(`${event.mode}: ${event.type} ${event.event_id}: not handled`)
  }
}

// Express 5 hands a listen failure (such as a port in use) to this callback.
const server = app.listen(port, (error) => {
  if (error) throw error
  console.log(`Receiver listening on http://localhost:${server.address().port}/webhooks`)
})
