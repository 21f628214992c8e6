import { describe, expect, it } from 'vitest'
import {
  eventListSchema,
  eventWithDeliveriesSchema,
  resendEventResponseSchema,
  webhookEndpointListSchema,
  webhookEndpointResponseSchema,
  type Event,
  type EventWithDeliveries,
  type WebhookEndpointResponse,
} from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'
import { useReceivers } from '../helpers/receiver.js'

const server = useServe()
const receiver = useReceivers()

const events = (merchant: TestMerchant, args: string[]) => runCli(['events', ...args], { env: merchant.env })

/**
 * A merchant with an active endpoint at a fresh receiver and one paid
 * session: webhook.verified, payment.processing, payment.succeeded and
 * checkout_session.succeeded have been delivered.
 *
 * Set-up over HTTP (bula webhooks create/list and bula trigger have tests of
 * their own); `endpointBy: 'cli'` registers the endpoint with `bula webhooks
 * create` and checks it with `bula webhooks list`, so this file still runs them.
 */
async function paidMerchant(endpointBy: 'http' | 'cli' = 'http') {
  const merchant = await signupMerchant(server().baseUrl)
  const hook = await receiver()
  let registered: WebhookEndpointResponse
  if (endpointBy === 'cli') {
    const created = await runCli(['webhooks', 'create', '--url', hook.url, '--json'], { env: merchant.env })
    expect(created.exitCode, created.stderr).toBe(0)
    registered = webhookEndpointResponseSchema.parse(parseJsonOutput(created))
  } else {
    registered = webhookEndpointResponseSchema.parse(await succeed(merchant.api.post('/v1/webhook-endpoints', { url: hook.url })))
  }
  const { endpoint } = registered
  await hook.waitFor(1)
  await expect
    .poll(async () => webhookEndpointListSchema.parse((await merchant.api.get('/v1/webhook-endpoints')).body).data.find(({ id }) => id === endpoint.id)?.status)
    .toBe('active')
  if (endpointBy === 'cli') expect((await runCli(['webhooks', 'list', '--json'], { env: merchant.env })).stdout).toContain('"active"')
  // What `bula trigger checkout_session.succeeded` does: an FJ$15.00 session, paid.
  const session = await merchant.api.createSession()
  await merchant.api.paySession(session.id)
  await hook.waitFor(4)
  return { merchant, hook, endpoint }
}

/** The newest event, over HTTP (set-up: `bula events list` has tests of its own above). */
async function newestEvent(merchant: TestMerchant): Promise<Event | undefined> {
  return eventListSchema.parse(await succeed(merchant.api.get('/_sim/events?limit=1'))).data[0]
}

/** An event with its deliveries over HTTP, for polls that only wait for a state. */
async function eventOverHttp(merchant: TestMerchant, id: string): Promise<EventWithDeliveries> {
  return eventWithDeliveriesSchema.parse(await succeed(merchant.api.get(`/_sim/events/${id}`)))
}

async function getEvent(merchant: TestMerchant, id: string): Promise<EventWithDeliveries> {
  const result = await events(merchant, ['get', id, '--json'])
  expect(result.exitCode, result.stderr).toBe(0)
  return eventWithDeliveriesSchema.parse(parseJsonOutput(result))
}

describe('events list', () => {
  it('lists the events newest first, by type, page by page', async () => {
    const { merchant } = await paidMerchant()
    const all = eventListSchema.parse(parseJsonOutput(await events(merchant, ['list', '--json'])))
    expect(all.data.map((event) => event.type)).toEqual([
      'checkout_session.succeeded',
      'payment.succeeded',
      'payment.processing',
      'webhook.verified',
    ])
    expect(all.hasMore).toBe(false)

    const payments = eventListSchema.parse(parseJsonOutput(await events(merchant, ['list', '--type', 'payment.succeeded', '--json'])))
    expect(payments.data.map((event) => event.event_id)).toEqual([all.data[1]!.event_id])

    const page = eventListSchema.parse(parseJsonOutput(await events(merchant, ['list', '--limit', '2', '--json'])))
    expect(page).toMatchObject({ hasMore: true })
    expect(page.data.map((event) => event.event_id)).toEqual(all.data.slice(0, 2).map((event) => event.event_id))
    const human = await events(merchant, ['list', '--limit', '2'])
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+TYPE\s+OBJECT\s+CREATED$/)
    expect(human.stdout).toMatch(new RegExp(`^${all.data[0]!.event_id}\\s+checkout_session\\.succeeded\\s+cs_\\S+ \\(succeeded\\)\\s`, 'm'))
    expect(human.stdout).toContain(`More events follow: add --starting-after ${all.data[1]!.event_id}.`)

    const next = eventListSchema.parse(
      parseJsonOutput(await events(merchant, ['list', '--limit', '2', '--starting-after', all.data[1]!.event_id, '--json'])),
    )
    expect(next.data.map((event) => event.event_id)).toEqual(all.data.slice(2).map((event) => event.event_id))
  })

  it('refuses an unknown type and a limit out of range as usage errors', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    expect((await events(merchant, ['list', '--type', 'checkout_session.paid'])).exitCode).toBe(2)
    // A typo gets the type meant, as `bula trigger` gives it.
    const typo = await events(merchant, ['list', '--type', 'checkout_session.succeded', '--json'])
    expect(typo.exitCode).toBe(2)
    expect(parseJsonOutput<{ error: { message: string } }>(typo).error.message).toMatch(
      /^Expected --type=checkout_session\.succeded to be one of: .*disbursement\.failed\. Did you mean --type checkout_session\.succeeded\?$/,
    )
    expect((await events(merchant, ['list', '--type', 'checkout_session.paid', '--json'])).stdout).not.toContain('Did you mean')
    expect((await events(merchant, ['list', '--limit', '101'])).exitCode).toBe(2)
    expect((await events(merchant, ['list'])).stdout).toBe('No events.')
  })
})

describe('events get', () => {
  it('shows the payload and every delivery attempt with its time, status, latency and answer', async () => {
    const { merchant, hook, endpoint } = await paidMerchant()
    const newest = await newestEvent(merchant)
    const detail = await getEvent(merchant, newest!.event_id)
    expect(detail.event).toEqual(newest)
    expect(detail.deliveries).toHaveLength(1)
    expect(detail.deliveries[0]).toMatchObject({ endpointId: endpoint.id, url: hook.url, status: 'succeeded' })
    expect(detail.deliveries[0]!.attempts).toEqual([expect.objectContaining({ status: 200, error: null, response: 'ok' })])
    // The payload delivered is the one shown.
    const delivered = hook.requests.find((request) => request.headers['x-service-event-id'] === newest!.event_id)
    expect(JSON.parse(delivered!.body)).toEqual(detail.event)

    const human = await events(merchant, ['get', newest!.event_id])
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^type:\s+checkout_session\.succeeded$/m)
    expect(human.stdout).toContain(`"event_id": "${newest!.event_id}"`)
    expect(human.stdout).toContain(`${detail.deliveries[0]!.id} to ${hook.url} (${endpoint.id}): succeeded`)
    expect(human.stdout).toMatch(/^#\s+TIME\s+STATUS\s+LATENCY\s+RESPONSE$/m)
    expect(human.stdout).toMatch(/^1\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d:\d\d UTC\)\s+200\s+\d+ ms\s+ok$/m)
  })

  it('shows failed attempts with the start of the receiver\'s answer and the next retry', async () => {
    const { merchant, hook } = await paidMerchant()
    hook.respondWith(() => 500)
    const triggered = await runCli(['trigger', 'checkout_session.cancelled', '--json'], { env: merchant.env })
    const cancelled = parseJsonOutput<{ events: Array<{ event_id: string }> }>(triggered).events[0]!
    await hook.waitFor(5)
    await expect.poll(async () => (await eventOverHttp(merchant, cancelled.event_id)).deliveries[0]?.attempts.length).toBe(1)

    const detail = await getEvent(merchant, cancelled.event_id)
    expect(detail.deliveries[0]).toMatchObject({ status: 'pending', attempts: [{ status: 500, response: 'receiver says no' }] })
    const human = await events(merchant, ['get', cancelled.event_id])
    expect(human.stdout).toMatch(/: pending, next attempt \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d UTC\)$/m)
    expect(human.stdout).toMatch(/^1\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d:\d\d UTC\)\s+500\s+\d+ ms\s+receiver says no$/m)
  })

  it('answers not_found for an unknown event', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await events(merchant, ['get', 'evt_nope', '--json'])
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'not_found' } })
  })
})

describe('events resend', () => {
  it('delivers the event again with the same id, to every active endpoint or the one named', async () => {
    const { merchant, hook, endpoint } = await paidMerchant('cli')
    const newest = await newestEvent(merchant)
    const id = newest!.event_id

    const human = await events(merchant, ['resend', id])
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout.split('\n')[0]).toMatch(/^DELIVERY\s+ENDPOINT\s+URL\s+STATUS$/)
    expect(human.stdout).toContain(`See the attempts with \`bula events get ${id}\`.`)
    const [resent] = (await hook.waitFor(5)).slice(4)
    expect(resent!.headers['x-service-event-id']).toBe(id)
    expect(JSON.parse(resent!.body)).toEqual(newest)

    const json = await events(merchant, ['resend', id, '--endpoint', endpoint.id, '--json'])
    const { deliveries } = resendEventResponseSchema.parse(parseJsonOutput(json))
    expect(deliveries).toEqual([expect.objectContaining({ endpointId: endpoint.id, eventId: id })])
    await hook.waitFor(6)
    await expect.poll(async () => (await eventOverHttp(merchant, id)).deliveries.map((delivery) => delivery.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ])

    const unknown = await events(merchant, ['resend', id, '--endpoint', 'we_nope'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toMatch(/^not_found: /m)
  })

  it('says so when no endpoint is active', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Set-up in this process (bula trigger has tests of its own): a payment left in progress.
    const processing = (await merchant.trigger('payment.processing')).find((event) => event.type === 'payment.processing')
    const result = await events(merchant, ['resend', processing!.event_id])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('No active endpoint to send to: nothing queued.')
  })
})
