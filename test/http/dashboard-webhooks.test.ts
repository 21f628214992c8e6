import { beforeAll, describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../src/webhooks/signature.js'
import { DashboardAgent, okFlashOf } from '../helpers/dashboard.js'
import { client, endpointsActive, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'
import { useReceivers, type Receiver } from '../helpers/receiver.js'

let base: string

const server = useTestServer({ webhookTimeoutMs: 2000 })
beforeAll(async () => {
  base = server().baseUrl
})

const receiver = useReceivers()

/** The secret a flash shows once. */
const secretOf = (html: string): string | undefined => /data-testid="secret">([^<]+)</.exec(html)?.[1]

let sessionCounter = 0

/** A merchant signed in to the dashboard, with an endpoint added there at a local receiver and verified. */
async function merchantWithEndpoint() {
  const { merchant, keys } = await signupMerchant(base)
  const api = client(base, keys.secret)
  const agent = await DashboardAgent.signIn(base, keys.secret)
  const r = await receiver()
  const added = await agent.submit('/dashboard/webhooks', '/dashboard/webhooks', { url: r.url })
  expect(added.status).toBe(303)
  expect(added.location).toBe('/dashboard/webhooks')
  const flashPage = await agent.follow(added)
  await r.waitFor(1)
  await endpointsActive(api)
  const endpoint = (await api.get('/v1/webhook-endpoints')).body.data[0] as { id: string; url: string }
  const paidSession = async (metadata: Record<string, string> = {}) => {
    const session = (
      await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD', metadata }, { headers: { 'idempotency-key': `dw-${++sessionCounter}` } })
    ).body as { id: string }
    expect((await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)
    return session
  }
  return { merchant, keys, api, agent, receiver: r, endpoint, flashPage, paidSession }
}

/** The event of `type` the receiver heard, as it was sent. */
const heard = (r: Receiver, type: string) => {
  const request = r.requests.find((q) => JSON.parse(q.body).type === type)
  if (!request) throw new Error(`no ${type} delivered`)
  return JSON.parse(request.body) as { event_id: string; data: { object: { id: string } } }
}

describe('webhook endpoints page', () => {
  it('adds an endpoint: its secret shows once in the flash, signs the check, and never shows again', async () => {
    const { api, agent, receiver: r, endpoint, flashPage } = await merchantWithEndpoint()
    const secret = secretOf(flashPage.html)
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/)
    expect(flashPage.html).toContain('Shown only now')
    expect(flashPage.html).toContain(`Added ${r.url} for test mode`)
    const [check] = r.requests
    expect(JSON.parse(check!.body).type).toBe('webhook.verified')
    expect(verifyWebhook(check!.body, check!.headers as Record<string, string>, secret!)).toBeTruthy()
    expect(endpoint.url).toBe(r.url)

    const list = await agent.get('/dashboard/webhooks')
    expect(list.status).toBe(200)
    expect(list.html).not.toContain('whsec_')
    expect(list.html).toContain(`<code>${r.url}</code>`)
    expect(list.html).toContain('<span class="badge badge-ok">active</span>')
    expect(list.html).toContain('Endpoints for test mode')
    expect(list.html).toContain(`action="/dashboard/webhooks/${endpoint.id}/rotate"`)
    // The check's delivery shows among the recent deliveries, linked to its event.
    const checkId = JSON.parse(check!.body).event_id as string
    expect(list.html).toContain(`href="/dashboard/events/${checkId}"`)
    expect(list.html).toContain('1 attempt, last HTTP 200')
    expect((await api.get('/v1/webhook-endpoints')).body.data).toHaveLength(1)
  })

  it('rotates a secret: a new one shows once, the old keeps verifying for 72 hours', async () => {
    const { api, agent, receiver: r, endpoint, flashPage } = await merchantWithEndpoint()
    const first = secretOf(flashPage.html)!
    const rotated = await agent.follow(await agent.submit('/dashboard/webhooks', `/dashboard/webhooks/${endpoint.id}/rotate`))
    const second = secretOf(rotated.html)
    expect(second).toMatch(/^whsec_/)
    expect(second).not.toBe(first)
    expect(rotated.html).toContain('The old secret keeps verifying until')
    expect(rotated.html).toContain('72 hours')
    const check = (await r.waitFor(2))[1]!
    expect(verifyWebhook(check.body, check.headers as Record<string, string>, second!)).toBeTruthy()
    expect(verifyWebhook(check.body, check.headers as Record<string, string>, first)).toBeTruthy()
    const listed = (await api.get('/v1/webhook-endpoints')).body.data[0]
    expect(listed.previousSecretExpiresAt).toEqual(expect.any(Number))
    const page = await agent.get('/dashboard/webhooks')
    expect(page.html).not.toContain('whsec_')
    expect(page.html).toContain('Verifies until')
  })

  it('deletes an endpoint', async () => {
    const { api, agent, endpoint } = await merchantWithEndpoint()
    const deleted = await agent.follow(await agent.submit('/dashboard/webhooks', `/dashboard/webhooks/${endpoint.id}/delete`))
    expect(deleted.html).toContain(`Deleted endpoint ${endpoint.id}`)
    expect(deleted.html).toContain('No webhook endpoints in test mode yet.')
    expect((await api.get('/v1/webhook-endpoints')).body.data).toEqual([])
  })

  it('refuses a bad URL with a flash naming the field', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    for (const [url, message] of [
      ['http://example.test/hook', 'url must be HTTPS (or http on localhost in test mode).'],
      ['not a url', 'Invalid `url`'],
    ] as const) {
      const refused = await agent.submit('/dashboard/webhooks', '/dashboard/webhooks', { url })
      expect(refused.location).toBe('/dashboard/webhooks')
      const page = await agent.follow(refused)
      expect(page.html).toContain('flash-error')
      expect(page.html).toContain(message)
      expect(page.html).toContain('Field: url')
    }
    expect((await client(base, keys.secret).get('/v1/webhook-endpoints')).body.data).toEqual([])
  })

  it('cannot rotate or delete another merchant\'s endpoint', async () => {
    const { api, endpoint } = await merchantWithEndpoint()
    const other = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    for (const action of ['rotate', 'delete']) {
      const page = await other.follow(await other.submit('/dashboard/webhooks', `/dashboard/webhooks/${endpoint.id}/${action}`))
      expect(page.html).toContain('flash-error')
      expect(page.html).toContain('No such webhook endpoint')
      expect(page.html).not.toContain('whsec_')
    }
    expect((await api.get('/v1/webhook-endpoints')).body.data).toEqual([expect.objectContaining({ id: endpoint.id, previousSecretExpiresAt: null })])
  })

  it('escapes a URL with markup in it', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const url = 'http://127.0.0.1:9/hook?x=<script>alert(1)</script>'
    const added = await agent.follow(await agent.submit('/dashboard/webhooks', '/dashboard/webhooks', { url }))
    expect(added.html).toContain('flash-ok')
    const page = await agent.get('/dashboard/webhooks')
    expect(page.html).toContain('<code>http://127.0.0.1:9/hook?x=&lt;script&gt;alert(1)&lt;/script&gt;</code>')
    expect(page.html).not.toContain('<script>alert')
    // The check event carries the URL in its payload: escaped inside the <pre> too.
    const checkId = /href="\/dashboard\/events\/(evt_[^"]+)"/.exec((await agent.get('/dashboard/events')).html)![1]
    const event = await agent.get(`/dashboard/events/${checkId}`)
    expect(event.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(event.html).not.toContain('<script>alert')
  })
})

describe('events pages', () => {
  it('lists the events of a paid session with their deliveries, filters by type and pages', async () => {
    const { agent, receiver: r, paidSession } = await merchantWithEndpoint()
    const session = await paidSession()
    await r.waitFor(4)
    const succeeded = heard(r, 'checkout_session.succeeded')
    await expect.poll(async () => (await agent.get('/dashboard/events')).html).toContain('1 attempt, last HTTP 200')

    const page = await agent.get('/dashboard/events')
    expect(page.status).toBe(200)
    expect(page.html).toContain('<div data-live-refresh="/dashboard/events/rows">')
    expect(page.html).toContain(`href="/dashboard/events/${succeeded.event_id}"`)
    expect(page.html).toContain(`<td>${session.id}</td>`)
    const order = ['checkout_session.succeeded', 'payment.succeeded', 'payment.processing', 'webhook.verified'].map((type) => page.html.indexOf(`<td>${type}</td>`))
    expect(order.every((position, i) => position > 0 && (i === 0 || position > order[i - 1]!))).toBe(true)
    expect(page.html).toContain('<form method="get" action="/dashboard/events"')

    const filtered = await agent.get('/dashboard/events?type=payment.succeeded')
    expect(filtered.html).toContain('<option value="payment.succeeded" selected>')
    expect(filtered.html).toContain('data-live-refresh="/dashboard/events/rows?type=payment.succeeded"')
    expect(filtered.html).toContain('<td>payment.succeeded</td>')
    expect(filtered.html).not.toContain('<td>checkout_session.succeeded</td>')

    const firstPage = await agent.get('/dashboard/events?limit=2')
    expect(firstPage.html).not.toContain('<td>payment.processing</td>')
    const older = /href="(\/dashboard\/events\?limit=2&amp;starting_after=[^"]+)">Older events/.exec(firstPage.html)![1]!.replaceAll('&amp;', '&')
    const secondPage = await agent.get(older)
    expect(secondPage.html).toContain('<td>payment.processing</td>')
    expect(secondPage.html).toContain('<td>webhook.verified</td>')
    expect(secondPage.html).toContain('Newest events')
    expect(secondPage.html).not.toContain('Older events')

    const bad = await agent.get('/dashboard/events?type=nope')
    expect(bad.status).toBe(400)
    expect(bad.html).toContain('Invalid `type`')
  })

  it('answers the live refresh with just the rows, and only with a session', async () => {
    const { agent, receiver: r, paidSession } = await merchantWithEndpoint()
    await paidSession()
    await r.waitFor(4)
    const rows = await agent.get('/dashboard/events/rows?type=payment.succeeded')
    expect(rows.status).toBe(200)
    expect(rows.headers.get('content-type')).toMatch(/^text\/html/)
    expect(rows.html).toContain(`href="/dashboard/events/${heard(r, 'payment.succeeded').event_id}"`)
    expect(rows.html).not.toContain('<html')
    expect(rows.html).not.toContain('payment.processing')

    const anonymous = await new DashboardAgent(base).get('/dashboard/events/rows')
    expect(anonymous.status).toBe(303)
    expect(anonymous.location).toBe('/dashboard/sign-in')
  })

  it('shows an event with its payload and attempts, and resends it', async () => {
    const { agent, receiver: r, endpoint, paidSession } = await merchantWithEndpoint()
    await paidSession({ note: '<script>alert(1)</script>' })
    await r.waitFor(4)
    const succeeded = heard(r, 'checkout_session.succeeded')
    const path = `/dashboard/events/${succeeded.event_id}`
    await expect.poll(async () => (await agent.get(path)).html).toContain('HTTP 200')

    const page = await agent.get(path)
    expect(page.status).toBe(200)
    expect(page.html).toContain('<h1>checkout_session.succeeded</h1>')
    expect(page.html).toContain(`<code>${succeeded.event_id}</code>`)
    expect(page.html).toContain(`&quot;event_id&quot;: &quot;${succeeded.event_id}&quot;`)
    expect(page.html).toContain('&quot;note&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;')
    expect(page.html).not.toContain('<script>alert')
    expect(page.html).toContain(`<code>${r.url}</code>`)
    expect(page.html).toContain('<span class="badge badge-ok">HTTP 200</span>')
    expect(page.html).toMatch(/<td>\d+ ms<\/td>/)
    expect(page.html).toContain('<td>ok</td>')
    expect(page.html).toContain(`name="endpointId" value="${endpoint.id}"`)

    const resent = await agent.submit(path, `${path}/resend`, { endpointId: endpoint.id })
    expect(resent.location).toBe(path)
    const flash = await agent.follow(resent)
    expect(flash.html).toContain(`Sent ${succeeded.event_id} again, same event id:`)
    expect(flash.html).toContain(r.url)
    const again = (await r.waitFor(5))[4]!
    expect(again.headers['x-service-event-id']).toBe(succeeded.event_id)
    expect(JSON.parse(again.body)).toEqual(succeeded)
    await expect.poll(async () => (await agent.get(path)).html.match(/badge-ok">HTTP 200/g)?.length).toBe(2)
  })

  it('resends an event to every active endpoint at once, skipping a pending one (issue 14)', async () => {
    const { api, agent, receiver: first, paidSession } = await merchantWithEndpoint()
    const second = await receiver()
    expect((await api.post('/v1/webhook-endpoints', { url: second.url })).status).toBe(200)
    await second.waitFor(1)
    await expect.poll(async () => (await api.get('/v1/webhook-endpoints')).body.data.map((e: { status: string }) => e.status)).toEqual(['active', 'active'])
    // A third that never answers 2xx stays pending: "every endpoint" means every one that receives events.
    const pending = await receiver()
    pending.respondWith(() => 500)
    expect((await api.post('/v1/webhook-endpoints', { url: pending.url })).status).toBe(200)
    await pending.waitFor(1)

    await paidSession()
    await first.waitFor(4)
    await second.waitFor(3)
    const succeeded = heard(first, 'checkout_session.succeeded')
    const path = `/dashboard/events/${succeeded.event_id}`
    const page = await agent.get(path)
    expect(page.html).toContain('Resend to every endpoint</button>')
    expect(page.html).toMatch(new RegExp(`<form method="post" action="${path}/resend"[^>]*data-confirm="Send ${succeeded.event_id} again to every active test endpoint\\?"`))

    const flash = okFlashOf(await agent.follow(await agent.submit(path, `${path}/resend`)))
    expect(flash).toContain(`Sent ${succeeded.event_id} again, same event id:`)
    expect(flash).toContain(first.url)
    expect(flash).toContain(second.url)
    expect(flash).not.toContain(pending.url)
    for (const [r, count] of [[first, 5], [second, 4]] as const) {
      const again = (await r.waitFor(count))[count - 1]!
      expect(again.headers['x-service-event-id']).toBe(succeeded.event_id)
    }
    expect(pending.requests.every((request) => JSON.parse(request.body).type === 'webhook.verified')).toBe(true)
  })

  it('an endpoint URL the simulator refuses comes back typed in (issue 14)', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const typed = 'ftp://shop.example/"hooks"'
    const refused = await agent.follow(await agent.submit('/dashboard/webhooks', '/dashboard/webhooks', { url: typed }))
    expect(refused.html).toContain('flash-error')
    expect(refused.html).toContain('Field: url')
    expect(refused.html).toContain('name="url" value="ftp://shop.example/&quot;hooks&quot;"')
    // Shown once: the next visit has the empty field again.
    expect((await agent.get('/dashboard/webhooks')).html).toContain('name="url" value=""')
  })

  it('resending to an unknown endpoint says so', async () => {
    const { agent, receiver: r, paidSession } = await merchantWithEndpoint()
    await paidSession()
    await r.waitFor(4)
    const path = `/dashboard/events/${heard(r, 'payment.succeeded').event_id}`
    const page = await agent.follow(await agent.submit(path, `${path}/resend`, { endpointId: 'we_nothere' }))
    expect(page.html).toContain('flash-error')
    expect(page.html).toContain('No such webhook endpoint')
  })

  it('gives 404 for another merchant\'s event, and for a test event in live mode', async () => {
    const { keys, receiver: r, paidSession } = await merchantWithEndpoint()
    await paidSession()
    await r.waitFor(4)
    const eventId = heard(r, 'payment.succeeded').event_id
    const other = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    const stranger = await other.get(`/dashboard/events/${eventId}`)
    expect(stranger.status).toBe(404)
    expect(stranger.html).not.toContain('payment.succeeded')
    const resend = await other.follow(await other.submit('/dashboard/events', `/dashboard/events/${eventId}/resend`, {}))
    expect(resend.html).toContain('No such event')
    expect(r.requests).toHaveLength(4)

    const live = await DashboardAgent.signIn(base, (await unlockLive(base, keys.secret)).secret)
    expect((await live.get(`/dashboard/events/${eventId}`)).status).toBe(404)
    const events = await live.get('/dashboard/events')
    expect(events.html).toContain('No events in live mode yet.')
    const webhooks = await live.get('/dashboard/webhooks')
    expect(webhooks.html).toContain('No webhook endpoints in live mode yet.')
    expect(webhooks.html).toContain('HTTPS only in live mode.')
  })
})
