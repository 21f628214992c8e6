import { verifyWebhook, WebhookVerificationError } from '../../webhooks/signature.js'
import type { CaseContext } from '../context.js'
import type { Delivery, Inbox } from '../receiver.js'
import { createInvoice, createSession, defineCases, HOUR, MINUTE, sendInvoice, type Session } from './support.js'

/** An address to register when no delivery needs to arrive: the receiver's when there is one, else a public HTTPS one. */
const someEndpointUrl = (t: CaseContext): string => t.target.receiver?.inbox().url ?? 'https://example.com/bula-conformance'

/** Whether the delivery's signature verifies with this secret (the spec's 5-minute window included). */
function verifies(delivery: Delivery, secret: string): boolean {
  try {
    verifyWebhook(delivery.rawBody, delivery.headers, secret)
    return true
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false
    throw error
  }
}

/** A `whsec_` secret in a rotate answer other than `old`; the spec does not show that body. */
const newSecretIn = (body: unknown, old: string): string | undefined => (JSON.stringify(body ?? null).match(/whsec_[A-Za-z0-9]+/g) ?? []).find((secret) => secret !== old)

/** How long to watch for a delivery that must not come: a target on this machine delivers at once, a remote one gets longer. */
const quietMs = (t: CaseContext): number => (t.target.local ? 500 : 3000)

/** Waits `quietMs` and fails if a delivery of this type (for this object) came. */
async function expectNoDelivery(t: CaseContext, inbox: Inbox, type: string, objectId: string, why: string): Promise<void> {
  const found = await inbox.find((delivery) => delivery.payload?.type === type && delivery.payload.data?.object?.id === objectId, quietMs(t))
  if (found) t.fail(`a ${type} delivery came ${why}`)
}

/** Cancels a new session and answers it with its cancelled delivery. */
async function cancelAndReceive(t: CaseContext, inbox: Inbox, metadata: Record<string, string> = {}): Promise<{ session: Session; delivery: Delivery }> {
  const session = await createSession(t, { metadata })
  t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`))
  const delivery = await t.webhooks.next(inbox, 'checkout_session.cancelled', { where: (candidate) => candidate.payload?.data?.object?.id === session.id })
  return { session, delivery }
}

export const webhookEndpointCases = defineCases([
  {
    id: 'webhook-endpoints/create',
    title: 'POST /webhook-endpoints answers the endpoint with its id, url and whsec_ secret',
    rules: ['webhook-endpoint.fields', 'webhook-endpoint-endpoints.create'],
    async run(t) {
      const url = someEndpointUrl(t)
      const endpoint = t.ok(await t.api.post('/webhook-endpoints', { url })).endpoint
      t.check(typeof endpoint?.id === 'string' && endpoint.url === url, 'the endpoint has no id, or another url')
      t.check(typeof endpoint.secret === 'string' && endpoint.secret.startsWith('whsec_'), 'the endpoint\'s secret does not start with whsec_')
    },
  },
  {
    id: 'webhook-endpoints/https-only',
    title: 'An endpoint URL that is not HTTPS is refused',
    rules: ['webhook-endpoint-endpoints.create'],
    async run(t) {
      for (const url of ['http://example.com/webhooks', 'ftp://example.com/webhooks', 'not a url']) {
        const answer = await t.api.post('/webhook-endpoints', { url })
        t.check(answer.status >= 400 && answer.status < 500, `${url} answered ${answer.status}`)
        t.expectEnvelope(answer)
      }
    },
  },
  {
    id: 'webhook-endpoints/list-no-secrets',
    title: 'GET /webhook-endpoints lists ids and URLs, never a secret',
    rules: ['webhook-endpoint.list-no-secrets', 'webhook-endpoint-endpoints.list'],
    async run(t) {
      const url = someEndpointUrl(t)
      const endpoint = t.ok(await t.api.post('/webhook-endpoints', { url })).endpoint
      const list = await t.api.get('/webhook-endpoints', { record: 'shape' })
      t.expectStatus(list, 200)
      t.check(list.text.includes(endpoint.id) && list.text.includes(url), 'the list leaves out the endpoint\'s id or url')
      t.check(!list.text.includes('whsec_'), 'the list shows a signing secret')
    },
  },
  {
    id: 'webhook-endpoints/delete',
    title: 'DELETE /webhook-endpoints/{id} removes the endpoint from the list',
    rules: ['webhook-endpoint-endpoints.delete'],
    async run(t) {
      const endpoint = t.ok(await t.api.post('/webhook-endpoints', { url: someEndpointUrl(t) })).endpoint
      const deleted = await t.api.delete(`/webhook-endpoints/${endpoint.id}`)
      t.check(deleted.status < 300, `delete answered ${deleted.status}`)
      const list = await t.api.get('/webhook-endpoints', { record: 'shape' })
      t.check(!list.text.includes(endpoint.id), 'the deleted endpoint is still listed')
    },
  },
  {
    id: 'webhook-endpoints/delete-stops-deliveries',
    title: 'A deleted endpoint gets no more deliveries',
    rules: ['webhook-endpoint-endpoints.delete'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      t.check((await t.api.delete(`/webhook-endpoints/${endpoint.id}`)).status < 300, 'delete was refused')
      const session = await createSession(t)
      t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`))
      await expectNoDelivery(t, endpoint.inbox, 'checkout_session.cancelled', session.id, 'to a deleted endpoint')
    },
  },
  {
    id: 'webhook-endpoints/rotate',
    title: 'A rotation sends webhook.verified again, and deliveries verify with the new and the old secret',
    rules: ['webhook-endpoint-endpoints.rotate', 'delivery.rotation-overlap', 'events.webhook-verified'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const seen = endpoint.inbox.deliveries.length
      const rotated = await t.api.post(`/webhook-endpoints/${endpoint.id}/rotate`)
      t.check(rotated.status < 300, `rotate answered ${rotated.status}`)
      const fresh = newSecretIn(rotated.body, endpoint.secret)
      await t.webhooks.next(endpoint.inbox, 'webhook.verified', { from: seen })
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      t.check(verifies(delivery, endpoint.secret), 'a delivery right after the rotation does not verify with the old secret')
      if (fresh) t.check(verifies(delivery, fresh), 'a delivery after the rotation does not verify with the new secret')
    },
  },
  {
    id: 'webhook-endpoints/rotation-overlap',
    title: 'The old signing secret stops verifying 72 hours after the rotation',
    rules: ['webhook-endpoint-endpoints.rotate', 'delivery.rotation-overlap', 'limits.rotation-overlap'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const rotated = await t.api.post(`/webhook-endpoints/${endpoint.id}/rotate`)
      const fresh = t.present(newSecretIn(rotated.body, endpoint.secret), 'the rotate answer holds no new secret')
      await t.sim.advance(72 * HOUR - MINUTE)
      const during = await cancelAndReceive(t, endpoint.inbox)
      t.check(verifies(during.delivery, endpoint.secret), 'a minute before the overlap ends the old secret does not verify')
      await t.sim.advance(2 * MINUTE)
      const after = await cancelAndReceive(t, endpoint.inbox)
      t.check(!verifies(after.delivery, endpoint.secret), 'a minute after the overlap ended the old secret still verifies')
      t.check(verifies(after.delivery, fresh), 'the new secret does not verify')
    },
  },
])

export const webhookCases = defineCases([
  {
    id: 'webhooks/verified-once',
    title: 'Registration sends webhook.verified once',
    rules: ['events.webhook-verified', 'service.signed-webhooks'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register({ verify: false })
      const verified = await t.webhooks.next(endpoint.inbox, 'webhook.verified')
      t.check(verifies(verified, endpoint.secret), 'webhook.verified does not verify with the endpoint\'s secret')
      await new Promise((resolve) => setTimeout(resolve, quietMs(t)))
      const count = endpoint.inbox.deliveries.filter((delivery) => delivery.payload?.type === 'webhook.verified').length
      t.check(count === 1, `webhook.verified came ${count} times`)
    },
  },
  {
    id: 'webhooks/unverified-skipped',
    title: 'An endpoint that refused webhook.verified is not active, and gets no other events',
    rules: ['webhook-endpoint.active-after-verified', 'events.webhook-verified'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register({ verify: false, respond: () => 500 })
      await t.webhooks.next(endpoint.inbox, 'webhook.verified')
      const session = await createSession(t)
      t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`))
      await expectNoDelivery(t, endpoint.inbox, 'checkout_session.cancelled', session.id, 'to an endpoint that never answered webhook.verified with a 2xx')
    },
  },
  {
    id: 'webhooks/headers',
    title: 'A delivery carries Service-Signature v1=<hex>, Service-Timestamp in seconds and X-Service-Event-Id',
    rules: ['delivery.headers', 'delivery.timestamp-window', 'limits.timestamp-window'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      const signature = delivery.headers['service-signature'] ?? ''
      const timestamp = delivery.headers['service-timestamp'] ?? ''
      t.check(/^v1=[0-9a-f]{64}(,v1=[0-9a-f]{64})*$/.test(signature), `Service-Signature is ${JSON.stringify(signature)}`)
      t.check(/^[0-9]+$/.test(timestamp) && Math.abs(Number(timestamp) - delivery.receivedAt / 1000) <= 300, `Service-Timestamp ${timestamp} is not the Unix seconds of sending`)
      t.check(delivery.headers['x-service-event-id'] === delivery.payload?.event_id, 'X-Service-Event-Id is not the payload\'s event_id')
    },
  },
  {
    id: 'webhooks/signature',
    title: 'The signature is HMAC-SHA256 of <timestamp>.<body> with the endpoint secret',
    rules: ['delivery.signature', 'service.signed-webhooks'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      t.check(verifies(delivery, endpoint.secret), 'the delivery does not verify with the endpoint secret')
      t.check(!verifies({ ...delivery, rawBody: `${delivery.rawBody} ` }, endpoint.secret), 'the signature verifies a changed body')
    },
  },
  {
    id: 'webhooks/timestamp-is-now',
    title: 'Service-Timestamp is the time of sending, also after the merchant\'s clock moved on',
    rules: ['delivery.timestamp-window', 'limits.timestamp-window'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      await t.sim.advance(3 * HOUR)
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      t.check(verifies(delivery, endpoint.secret), 'a delivery after a clock advance is outside the 5-minute window')
    },
  },
  {
    id: 'webhooks/retry-same-id',
    title: 'A failed delivery is retried with the same event id',
    rules: ['delivery.retry-same-id'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      endpoint.inbox.respond = (delivery) => (delivery.payload?.type === 'checkout_session.cancelled' && !endpoint.inbox.deliveries.some((seen) => seen.payload?.type === 'checkout_session.cancelled') ? 500 : 200)
      const { session, delivery } = await cancelAndReceive(t, endpoint.inbox)
      t.check(delivery.answered === 500, 'the receiver did not refuse the first attempt')
      await t.sim.advance(HOUR)
      const retry = await t.webhooks.next(endpoint.inbox, 'checkout_session.cancelled', { from: endpoint.inbox.deliveries.indexOf(delivery) + 1, where: (candidate) => candidate.payload?.data?.object?.id === session.id })
      t.check(retry.payload?.event_id === delivery.payload?.event_id && retry.headers['x-service-event-id'] === delivery.headers['x-service-event-id'], 'the retry has another event id')
    },
  },
  {
    id: 'webhooks/cancelled',
    title: 'Cancel sends checkout_session.cancelled with the session, its metadata and the mode',
    rules: ['events.session-cancelled', 'events.session-payload', 'events.one-mode', 'session-states.cancel'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const { delivery } = await cancelAndReceive(t, endpoint.inbox, { orderId: 'ord_77' })
      const object = delivery.payload?.data?.object as Session | undefined
      t.check(object?.status === 'cancelled', `the event's session is ${object?.status}`)
      t.check(object?.metadata?.orderId === 'ord_77', 'the event does not carry the session metadata')
      t.check(delivery.payload?.mode === 'test', `the event says mode ${delivery.payload?.mode}`)
    },
  },
  {
    id: 'webhooks/expired',
    title: 'Expiry sends checkout_session.cancelled',
    rules: ['events.session-cancelled', 'session-states.expiry'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const session = await createSession(t, { expiresAt: (await t.sim.now()) + 30 * MINUTE + 1000 })
      await t.sim.advance(31 * MINUTE)
      const delivery = await t.webhooks.next(endpoint.inbox, 'checkout_session.cancelled', { where: (candidate) => candidate.payload?.data?.object?.id === session.id })
      t.check((delivery.payload?.data?.object as Session).status === 'cancelled', 'the expired session in the event is not cancelled')
    },
  },
  {
    id: 'webhooks/succeeded',
    title: 'A successful payment sends checkout_session.succeeded with metadata and mode',
    rules: ['events.session-succeeded', 'events.session-payload', 'service.checkout-flow', 'session-states.pay-succeeds'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const session = await createSession(t, { metadata: { orderId: 'ord_88' } })
      await t.sim.pay(session.id, 'succeeded')
      const delivery = await t.webhooks.next(endpoint.inbox, 'checkout_session.succeeded')
      const object = delivery.payload?.data?.object as Session
      t.check(object.id === session.id && object.status === 'succeeded' && object.metadata.orderId === 'ord_88', 'the event does not carry the succeeded session with its metadata')
      t.check(delivery.payload?.mode === 'test', `the event says mode ${delivery.payload?.mode}`)
      t.check(!('invoiceNumber' in object), 'a session paying no Invoice carries invoiceNumber')
    },
  },
  {
    id: 'webhooks/failed',
    title: 'A declined payment sends a checkout_session.* event with the failed session',
    rules: ['session-states.pay-fails', 'events.payment-events'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const session = await createSession(t)
      await t.sim.pay(session.id, 'failed')
      const found = t.present(
        await endpoint.inbox.find(
          (delivery) => (delivery.payload?.type ?? '').startsWith('checkout_session.') && delivery.payload?.data?.object?.id === session.id,
          t.target.deliveryTimeoutMs,
        ),
        'no checkout_session.* delivery for the failed session',
      )
      t.webhooks.record(found)
      t.check((found.payload?.data?.object as Session).status === 'failed', 'the event\'s session is not failed')
      await t.webhooks.next(endpoint.inbox, 'payment.failed')
    },
  },
  {
    id: 'webhooks/payment-events',
    title: 'Paying sends payment.processing and then payment.succeeded',
    rules: ['events.payment-events'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const session = await createSession(t)
      await t.sim.pay(session.id, 'processing')
      await t.webhooks.next(endpoint.inbox, 'payment.processing')
      await t.sim.pay(session.id, 'succeeded')
      await t.webhooks.next(endpoint.inbox, 'payment.succeeded')
    },
  },
  {
    id: 'webhooks/invoice-number',
    title: 'A session paying an Invoice carries invoiceNumber, in the event and on retrieve',
    rules: ['checkout-session.invoice-number', 'events.session-payload'],
    needs: ['webhooks', 'sim', 'business'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      await t.sim.payInvoice(sent.id, 'succeeded')
      const delivery = await t.webhooks.next(endpoint.inbox, 'checkout_session.succeeded')
      const object = delivery.payload?.data?.object as Session
      t.check(object.invoiceNumber === sent.number, `the event's invoiceNumber is ${object.invoiceNumber}, the Invoice's ${sent.number}`)
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${object.id}`)) as Session
      t.check(read.invoiceNumber === sent.number, 'the session does not carry invoiceNumber on retrieve')
    },
  },
  {
    id: 'webhooks/one-mode',
    title: 'A test endpoint hears test events only',
    rules: ['events.one-mode'],
    needs: ['webhooks', 'live'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const live = t.as((await t.sim.unlockLive()).secret, 'live secret')
      const liveSession = await createSession(t, {}, live)
      t.ok(await live.post(`/v1/checkout-sessions/${liveSession.id}/cancel`))
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      t.check(delivery.payload?.mode === 'test', 'the test event does not say mode test')
      await expectNoDelivery(t, endpoint.inbox, 'checkout_session.cancelled', liveSession.id, 'to a test endpoint for a live session')
    },
  },
  {
    id: 'webhooks/disbursement-sent',
    title: 'A Payout sends disbursement.sent',
    rules: ['events.disbursement-sent'],
    needs: ['webhooks', 'sim'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const session = await createSession(t, { amount: 4200 })
      await t.sim.pay(session.id, 'succeeded')
      await t.sim.settings({ payoutSchedule: 'daily' })
      await t.sim.advance(25 * HOUR)
      const delivery = await t.webhooks.next(endpoint.inbox, 'disbursement.sent')
      t.check((delivery.payload?.data?.object as { amount?: number }).amount === 4200, 'disbursement.sent does not carry the Payout of 4200')
    },
  },
  {
    id: 'webhooks/payload',
    title: 'A payload has event_id, type, mode and data.object',
    rules: ['delivery.additive', 'versioning.additive-payloads'],
    needs: ['webhooks'],
    async run(t) {
      const endpoint = await t.webhooks.register()
      const { delivery } = await cancelAndReceive(t, endpoint.inbox)
      const payload = t.present(delivery.payload, 'the payload is not JSON')
      t.check(typeof payload.event_id === 'string' && typeof payload.type === 'string' && typeof payload.mode === 'string', 'the payload lacks event_id, type or mode')
      t.check(typeof payload.data?.object === 'object', 'the payload lacks data.object')
    },
  },
])
