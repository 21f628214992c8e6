import { createHash } from 'node:crypto'
import { client, signupMerchant, unlockLive } from './http.js'

let counter = 0
/** A fresh Idempotency-Key header. */
export const idempotencyKey = () => ({ headers: { 'idempotency-key': `live-data-${++counter}` } })

const invoiceBody = { customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 2, unitPrice: 2500 }] }

/** Creates and sends an Invoice with the client's key. */
export async function sentInvoice(api: ReturnType<typeof client>) {
  const draft = (await api.post('/v1/invoices', invoiceBody, idempotencyKey())).body
  return (await api.post(`/v1/invoices/${draft.id}/send`, undefined, idempotencyKey())).body as { id: number; url: string; number: string }
}

/**
 * A business merchant with data in both modes, for the trust tests
 * (docs/security.md): in live mode a paid session with a customer e-mail, a
 * pending one, an endpoint, a sent Invoice, an e-mail and a pending Payout
 * (with `requestPayout: false`, the live balance stays unswept instead);
 * in test mode three pending sessions. `liveMarkers` are strings that no
 * answer to the test key may contain: every live id, secret and e-mail.
 */
export async function merchantWithLiveData(baseUrl: string, { requestPayout = true }: { requestPayout?: boolean } = {}) {
  const { merchant, keys } = await signupMerchant(baseUrl)
  const test = client(baseUrl, keys.secret)
  const liveKeys = await unlockLive(baseUrl, keys.secret)
  const live = client(baseUrl, liveKeys.secret)
  const liveEndpoint = (await live.post('/v1/webhook-endpoints', { url: 'https://127.0.0.1:9/live-hooks' })).body.endpoint
  const liveSession = (
    await live.post(
      '/v1/checkout-sessions',
      { amount: 5000, currency: 'FJD', customerEmail: 'live.customer@example.test', successUrl: 'https://shop.example/ok' },
      idempotencyKey(),
    )
  ).body
  const livePay = (await live.post(`/_sim/checkout-sessions/${liveSession.id}/pay`, { outcome: 'succeeded' })).body
  if (livePay.checkoutSession?.status !== 'succeeded') throw new Error(`live payment failed: ${JSON.stringify(livePay)}`)
  const liveInvoice = await sentInvoice(live)
  await live.patch('/_sim/settings', { payoutSchedule: 'manual' })
  const livePending = (await live.post('/v1/checkout-sessions', { amount: 700, currency: 'FJD' }, idempotencyKey())).body
  for (let i = 0; i < 3; i++) await test.post('/v1/checkout-sessions', { amount: 100 + i, currency: 'FJD' }, idempotencyKey())
  const livePayout = requestPayout ? (await live.post('/_sim/payouts/request')).body.payout : undefined
  const liveEvents = (await live.get('/_sim/events?limit=100')).body.data as { event_id: string }[]
  const liveEmails = (await live.get('/_sim/emails')).body.data as { id: string }[]
  const liveKeyList = (await live.get('/v1/api-keys')).body.data as { id: string }[]
  const liveInvoiceToken = liveInvoice.url.split('/').at(-1)!
  const liveIds = [
    liveSession.id,
    livePending.id,
    livePay.paymentIntent.id,
    liveEndpoint.id,
    ...(livePayout ? [livePayout.id] : []),
    ...liveEvents.map((event) => event.event_id),
    ...liveEmails.map((email) => email.id),
    ...liveKeyList.map((apiKey) => apiKey.id),
  ] as string[]
  const liveMarkers = [
    ...liveIds,
    liveEndpoint.secret,
    liveKeys.secret,
    liveKeys.publishable,
    createHash('sha256').update(liveKeys.secret).digest('hex'),
    'live.customer@example.test',
    liveInvoiceToken,
  ] as string[]
  return { merchant, keys, liveKeys, test, live, liveEndpoint, liveSession, liveIntentId: livePay.paymentIntent.id as string, liveInvoice, livePayout, liveIds, liveMarkers }
}

/** Reads a Server-Sent Events stream for `ms`, then hangs up: the text received. */
export async function readStream(baseUrl: string, path: string, secret: string, ms: number, during?: () => Promise<unknown>): Promise<{ status: number; text: string }> {
  const controller = new AbortController()
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` }, signal: controller.signal })
  let text = ''
  const reading = (async () => {
    try {
      for await (const chunk of response.body!) text += Buffer.from(chunk).toString('utf8')
    } catch {
      // aborted
    }
  })()
  await during?.()
  await new Promise((resolve) => setTimeout(resolve, ms))
  controller.abort()
  await reading
  return { status: response.status, text }
}

