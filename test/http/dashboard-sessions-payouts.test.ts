import { beforeAll, describe, expect, it } from 'vitest'
import { formatTime } from '../../src/time.js'
import { DashboardAgent, errorFlashOf, okFlashOf, type DashboardPage } from '../helpers/dashboard.js'
import { DAY, HOUR, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

// A Sunday, 10:00 UTC: the weekly settlement runs 14 hours later.
const SUNDAY = Date.UTC(2026, 10, 22, 10, 0, 0)
const SCRIPT = '<script>alert(1)</script>'
const ESCAPED_SCRIPT = '&lt;script&gt;alert(1)&lt;/script&gt;'

let base: string
const wall = new ManualWallClock(SUNDAY)

const server = useTestServer({ wall })
beforeAll(async () => {
  base = server().baseUrl
})

let counter = 0

/** A new merchant, signed in to the dashboard, with helpers that act through the API. */
async function merchant(tier: 'business' | 'individual' = 'business') {
  const { keys } = await signupMerchant(base, tier)
  const api = client(base, keys.secret)
  const agent = await DashboardAgent.signIn(base, keys.secret)
  const create = async (body: Record<string, unknown> = {}) => {
    const created = await api.post(
      '/v1/checkout-sessions',
      { amount: 1500, currency: 'FJD', ...body },
      { headers: { 'idempotency-key': `dash-sp-${++counter}` } },
    )
    expect(created.status).toBe(201)
    return created.body as { id: string; amount: number; createdAt: number; expiresAt: number }
  }
  const pay = async (id: string, outcome = 'succeeded') => {
    const paid = await api.post(`/_sim/checkout-sessions/${id}/pay`, { outcome })
    expect(paid.status).toBe(200)
    return paid.body as { paymentIntent: { id: string } }
  }
  const advance = async (ms: number) => expect((await api.post('/_sim/clock/advance', { ms })).status).toBe(200)
  return { keys, api, agent, create, pay, advance }
}

/** The rows of a page's first table body. */
const rowsOf = (page: DashboardPage): string[] => /<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1]?.match(/<tr>[\s\S]*?<\/tr>/g) ?? []
const nextLinkOf = (page: DashboardPage): string | undefined =>
  /<a class="button button-secondary" href="([^"]+)">Next page<\/a>/.exec(page.html)?.[1]?.replaceAll('&amp;', '&')

describe('Checkout Sessions list', () => {
  it('lists the sessions of the merchant and mode newest first, with amount, quote, status, invoice and times', async () => {
    const { agent, create, pay, api } = await merchant()
    const paid = await create({ amount: 2500 })
    await pay(paid.id)
    wall.tick(60_000)
    const quoted = await create({ amount: undefined, currency: undefined, quote: { amount: 1000, currency: 'USD' } })
    wall.tick(60_000)
    const cancelled = await create()
    expect((await api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`)).status).toBe(200)
    const other = await merchant()
    const foreign = await other.create()

    const page = await agent.get('/dashboard/sessions')
    expect(page.status).toBe(200)
    expect(page.html).toContain('The Checkout Sessions of test mode, newest first.')
    const rows = rowsOf(page)
    expect(rows).toHaveLength(3)
    expect(rows[0]).toContain(`href="/dashboard/sessions/${cancelled.id}"`)
    expect(rows[0]).toContain('<span class="badge badge-quiet">cancelled</span>')
    expect(rows[1]).toContain(quoted.id)
    expect(rows[1]).toContain(`(quote US$10.00)`)
    expect(rows[1]).toContain('<span class="badge badge-wait">pending</span>')
    expect(rows[2]).toContain(paid.id)
    expect(rows[2]).toContain('FJ$25.00')
    expect(rows[2]).toContain('<span class="badge badge-ok">succeeded</span>')
    expect(rows[2]).toContain(`<td>${formatTime(paid.createdAt)}</td><td>${formatTime(paid.expiresAt)}</td>`)
    expect(page.html).not.toContain(foreign.id)
  })

  it('filters by status and dates, pages with a Next page link, and says what is wrong with a bad filter', async () => {
    const { agent, create, pay, advance } = await merchant()
    const first = await create()
    await pay(first.id)
    await advance(2 * DAY)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await create()).id)

    const succeeded = await agent.get('/dashboard/sessions?status=succeeded')
    expect(rowsOf(succeeded)).toHaveLength(1)
    expect(succeeded.html).toContain(first.id)
    expect(succeeded.html).toContain('<option value="succeeded" selected>succeeded</option>')

    // The first session was made on 2026-11-22, the others two days later.
    const early = await agent.get('/dashboard/sessions?from=2026-11-20&to=2026-11-22')
    expect(rowsOf(early).map((row) => row.includes(first.id))).toEqual([true])
    expect(early.html).toContain('value="2026-11-20"')
    const late = await agent.get('/dashboard/sessions?from=2026-11-24')
    expect(rowsOf(late)).toHaveLength(3)
    const none = await agent.get('/dashboard/sessions?status=failed')
    expect(none.html).toContain('No Checkout Sessions in test mode match this filter.')

    const page1 = await agent.get('/dashboard/sessions?limit=2&from=2026-11-01')
    expect(rowsOf(page1).map((row) => /sessions\/(cs_[^"]+)"/.exec(row)?.[1])).toEqual([ids[2], ids[1]])
    const next = nextLinkOf(page1)
    expect(next).toMatch(/^\/dashboard\/sessions\?from=2026-11-01&limit=2&cursor=/)
    const page2 = await agent.get(next!)
    expect(rowsOf(page2).map((row) => /sessions\/(cs_[^"]+)"/.exec(row)?.[1])).toEqual([ids[0], first.id])
    expect(nextLinkOf(page2)).toBeUndefined()
    expect(page2.html).toContain('>First page</a>')

    for (const [search, message, field] of [
      ['limit=0', 'Invalid `limit`', 'limit'],
      ['from=yesterday', '`from` must be a date like 2026-03-01.', 'from'],
      ['to=2026-02-31', '`to` must be a date like 2026-03-01.', 'to'],
      ['cursor=nonsense', 'cursor is not a nextCursor this API returned.', 'cursor'],
      ['status=lost', 'Invalid `status`', 'status'],
    ] as const) {
      const bad = await agent.get(`/dashboard/sessions?${search}`)
      expect(bad.status).toBe(400)
      expect(errorFlashOf(bad)).toContain(message)
      expect(errorFlashOf(bad)).toContain(`Field: ${field}`)
      expect(bad.html).toContain('<form method="get" action="/dashboard/sessions"')
    }
  })

  it('shows a session the expiry cancelled as expired', async () => {
    const { agent, create, api, advance } = await merchant()
    const now = (await api.get('/_sim/clock')).body.now as number
    const expiring = await create({ expiresAt: now + 30 * 60_000 })
    const cancelledEarly = await create()
    await api.post(`/v1/checkout-sessions/${cancelledEarly.id}/cancel`)
    await advance(HOUR)
    expect((await api.get(`/v1/checkout-sessions/${expiring.id}`)).body.status).toBe('cancelled')
    const rows = rowsOf(await agent.get('/dashboard/sessions'))
    expect(rows.find((row) => row.includes(expiring.id))).toContain('<span class="badge badge-bad">expired</span>')
    expect(rows.find((row) => row.includes(cancelledEarly.id))).toContain('<span class="badge badge-quiet">cancelled</span>')
    const detail = await agent.get(`/dashboard/sessions/${expiring.id}`)
    expect(detail.html).toContain('Cancelled when it expired')
    expect(detail.html).not.toContain('Cancel session')
  })
})

describe('Checkout Session page', () => {
  it('shows every field, its payment intents and the events about it, with merchant strings escaped', async () => {
    const { agent, create, pay } = await merchant()
    const session = await create({
      amount: 4200,
      metadata: { order: SCRIPT },
      successUrl: 'https://shop.example.test/done?x=<b>',
      cancelUrl: 'https://shop.example.test/cancel',
    })
    const processing = await pay(session.id, 'processing')
    wall.tick(60_000)
    const paidAt = formatTime(session.createdAt + 60_000)
    await pay(session.id, 'succeeded')

    const page = await agent.get(`/dashboard/sessions/${session.id}`)
    expect(page.status).toBe(200)
    expect(page.html).toContain(`<h1>Checkout Session <code>${session.id}</code></h1>`)
    expect(page.html).toContain('<span class="badge badge-ok">succeeded</span>')
    expect(page.html).toContain('FJ$42.00')
    expect(page.html).toContain(`<a href="${base}/pay/${session.id}">${base}/pay/${session.id}</a>`)
    expect(page.html).toContain('https://shop.example.test/done?x=&lt;b&gt;')
    expect(page.html).toContain('https://shop.example.test/cancel')
    expect(page.html).toContain(`<td><span class="free-text">order</span></td><td><span class="free-text">${ESCAPED_SCRIPT}</span></td>`)
    expect(page.html).not.toContain(SCRIPT)
    expect(page.html).toContain('None (test mode keeps no address)')
    expect(page.html).toContain(`<dt>Ended</dt><dd>${paidAt}</dd>`)
    // The payment intent: provider, status, amount, times.
    const intentRow = rowsOf({ ...page, html: page.html.slice(page.html.indexOf('id="intents-heading"')) })[0]!
    expect(intentRow).toContain(processing.paymentIntent.id)
    expect(intentRow).toContain('<td>Card</td>')
    expect(intentRow).toContain('<span class="badge badge-ok">succeeded</span>')
    expect(intentRow).toContain(`<td>${formatTime(session.createdAt)}</td><td>${paidAt}</td>`)
    // The events, newest first, linked to the Events pages.
    const events = page.html.slice(page.html.indexOf('id="session-events-heading"'))
    const types = [...events.matchAll(/<td>((?:payment|checkout_session)\.[a-z]+)<\/td>/g)].map((match) => match[1])
    expect(types).toEqual(['checkout_session.succeeded', 'payment.succeeded', 'payment.processing'])
    expect(events).toMatch(/href="\/dashboard\/events\/evt_[^"]+"/)
    expect(page.html).not.toContain('Cancel session')
  })

  it('cancels a pending session with its button; a payment in progress or another merchant comes back as a flash', async () => {
    const { agent, create, pay, api } = await merchant()
    const session = await create()
    const path = `/dashboard/sessions/${session.id}`
    const before = await agent.get(path)
    expect(before.html).toContain(`action="/dashboard/sessions/${session.id}/cancel"`)
    expect(before.html).toContain('data-confirm')
    const cancelled = await agent.submit(path, `${path}/cancel`)
    expect(cancelled.status).toBe(303)
    expect(cancelled.location).toBe(path)
    const after = await agent.follow(cancelled)
    expect(okFlashOf(after)).toContain(`Cancelled ${session.id}`)
    expect(after.html).toContain('<span class="badge badge-quiet">cancelled</span>')
    expect(after.html).not.toContain('Cancel session')
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('cancelled')
    expect(after.html).toContain('checkout_session.cancelled')

    const paying = await create()
    const payingPath = `/dashboard/sessions/${paying.id}`
    await pay(paying.id, 'processing')
    const page = await agent.get(payingPath)
    expect(page.html).not.toContain('Cancel session')
    expect(page.html).toContain('The customer has started paying')
    // A form from before the payment started still posts: the service says no.
    const refused = await agent.follow(await agent.submit(payingPath, `${payingPath}/cancel`))
    expect(errorFlashOf(refused)).toContain('The customer has started paying; the session can no longer be cancelled.')
    expect((await api.get(`/v1/checkout-sessions/${paying.id}`)).body.status).toBe('pending')

    const stranger = await merchant()
    const theirs = await stranger.create()
    const notFound = await agent.get(`/dashboard/sessions/${theirs.id}`)
    expect(notFound.status).toBe(404)
    expect(notFound.html).toContain('No such Checkout Session for this merchant and mode.')
    const foreignCancel = await agent.follow(await agent.submit('/dashboard/sessions', `/dashboard/sessions/${theirs.id}/cancel`))
    expect(errorFlashOf(foreignCancel)).toContain('No such Checkout Session')
    expect((await stranger.api.get(`/v1/checkout-sessions/${theirs.id}`)).body.status).toBe('pending')
  })
})

describe('Payouts', () => {
  it('starts with an empty chart and no payouts', async () => {
    const { agent } = await merchant()
    const page = await agent.get('/dashboard/payouts')
    expect(page.status).toBe(200)
    expect(page.html).toContain('data-testid="payouts-balance">FJ$0.00<')
    expect(page.html).toContain('data-testid="payouts-schedule">Weekly<')
    expect(page.html).toContain('No payments or payouts in test mode yet')
    expect(page.html).toContain('No payouts in test mode yet.')
    expect(page.html).not.toContain('<svg')
    expect(page.html).not.toContain('Request payout now')
  })

  it('lists the payout a settlement made, newest first, with the chart of balance and payouts', async () => {
    const { agent, api, create, pay, advance } = await merchant('individual')
    await api.patch('/_sim/settings', { payoutSchedule: 'daily' })
    await pay((await create({ amount: 1500 })).id)
    wall.tick(HOUR)
    await pay((await create({ amount: 2500 })).id)

    const before = await agent.get('/dashboard/payouts')
    expect(before.html).toContain('data-testid="payouts-balance">FJ$40.00<')
    expect(before.html).toContain('<path class="chart-balance"')
    expect(before.html).not.toContain('<rect class="chart-bar"')

    await advance(DAY)
    await pay((await create({ amount: 700 })).id)
    await advance(DAY)
    const payouts = (await api.get('/v1/payouts')).body.data as { id: string; amount: number; createdAt: number }[]
    expect(payouts.map((payout) => payout.amount)).toEqual([4000, 700])

    const page = await agent.get('/dashboard/payouts')
    expect(page.html).toContain('data-testid="payouts-balance">FJ$0.00<')
    expect(page.html).toContain('data-testid="payouts-schedule">Daily<')
    expect(page.html).toContain('choose manual in <a href="/dashboard/settings">Settings</a>')
    expect(page.html).not.toContain('Request payout now')
    const rows = rowsOf({ ...page, html: page.html.slice(page.html.indexOf('id="payouts-heading"')) })
    expect(rows).toHaveLength(2)
    expect(rows[0]).toContain(`href="/dashboard/payouts/${payouts[1]!.id}"`)
    expect(rows[0]).toContain('FJ$7.00')
    expect(rows[1]).toContain('FJ$40.00')
    expect(rows[1]).toContain('<span class="badge badge-ok">paid</span>')
    expect(rows[1]).toContain('<td>Wallet</td>')
    expect(rows[1]).toContain('Paid 23 Nov 2026, 12:00 FJT (00:00 UTC)')

    // The chart: an accessible SVG with one bar per payout and the balance as a step line.
    const svg = /<svg[\s\S]*?<\/svg>/.exec(page.html)![0]
    expect(svg).toContain('role="img" aria-labelledby="balance-chart-title balance-chart-desc"')
    expect(svg).toContain('<title id="balance-chart-title">Balance and payouts over time, test mode</title>')
    expect(svg).toContain('2 payouts totalling FJ$47.00; balance FJ$0.00 at the end.')
    expect(svg.match(/<rect class="chart-bar"/g)).toHaveLength(2)
    expect(svg).toContain('<title>Payout of FJ$40.00, 23 Nov 2026, 12:00 FJT (00:00 UTC)</title>')
    expect(svg).toContain('FJ$40.00</text>')
    expect(svg).toContain('23 Nov 00:00</text>')
    // Its data as a table, newest first.
    const table = page.html.slice(page.html.indexOf('<details>'), page.html.indexOf('</details>'))
    expect(table).toContain('Every change, newest first.')
    expect(rowsOf({ ...page, html: table }).map((row) => /<td>(Payout|Payment)/.exec(row)?.[1])).toEqual([
      'Payout',
      'Payment',
      'Payout',
      'Payment',
      'Payment',
    ])
    expect(table).toContain('<td>-FJ$40.00</td><td>FJ$0.00</td>')

    const detail = await agent.get(`/dashboard/payouts/${payouts[0]!.id}`)
    expect(detail.status).toBe(200)
    expect(detail.html).toContain('FJ$40.00')
    expect(detail.html).toContain('Wallet')
    expect(detail.html).toContain('disbursement.sent')
    const stranger = await merchant()
    expect((await stranger.agent.get(`/dashboard/payouts/${payouts[0]!.id}`)).status).toBe(404)

    // A request off the manual schedule: the service's refusal, as a flash.
    const refused = await agent.follow(await agent.submit('/dashboard/payouts', '/dashboard/payouts/request'))
    expect(errorFlashOf(refused)).toContain('Payouts follow the daily schedule; set it to manual to request one.')
  })

  it('on the manual schedule, requests a payout now with the button', async () => {
    const { agent, api, create, pay } = await merchant()
    expect((await api.patch('/_sim/settings', { payoutSchedule: 'manual' })).status).toBe(200)
    await pay((await create({ amount: 3300 })).id)
    const page = await agent.get('/dashboard/payouts')
    expect(page.html).toContain('data-testid="payouts-schedule">Manual<')
    expect(page.html).toContain('action="/dashboard/payouts/request"')
    expect(page.html).toContain('Request payout now')

    const requested = await agent.submit('/dashboard/payouts', '/dashboard/payouts/request')
    expect(requested.status).toBe(303)
    expect(requested.location).toBe('/dashboard/payouts')
    const after = await agent.follow(requested)
    const [payout] = (await api.get('/v1/payouts')).body.data as { id: string; amount: number; status: string }[]
    expect(payout).toMatchObject({ amount: 3300, status: 'paid' })
    expect(okFlashOf(after)).toContain(`Payout ${payout!.id} of FJ$33.00 requested: paid at once (test mode).`)
    expect(after.html).toContain('data-testid="payouts-balance">FJ$0.00<')
    expect((await api.get('/v1/merchants/me')).body.balance).toBe(0)

    const empty = await agent.follow(await agent.submit('/dashboard/payouts', '/dashboard/payouts/request'))
    expect(errorFlashOf(empty)).toContain('The test balance is zero: there is nothing to pay out.')
  })

  it('shows live data in live mode: a requested live payout that failed, its amount back in the balance', async () => {
    const { keys, agent: testAgent } = await merchant()
    const liveKey = (await unlockLive(base, keys.secret)).secret
    const liveApi = client(base, liveKey)
    // Live data needs a session signed in with a live key.
    const agent = await DashboardAgent.signIn(base, liveKey)
    await liveApi.patch('/_sim/settings', { payoutSchedule: 'manual' })
    const session = (await liveApi.post('/v1/checkout-sessions', { amount: 700, currency: 'FJD' }, { headers: { 'idempotency-key': `dash-sp-${++counter}` } })).body
    expect((await liveApi.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)

    const requested = await agent.follow(await agent.submit('/dashboard/payouts', '/dashboard/payouts/request'))
    expect(okFlashOf(requested)).toContain('pending until the daily disbursement run (6:00 UTC) sends it.')
    expect(requested.html).toContain('<span class="badge badge-wait">pending</span>')
    expect(requested.html).toContain('Waiting for the disbursement run')
    // No destination is set, so the transfer fails and the amount comes back.
    expect((await liveApi.post('/_sim/clock/advance', { ms: DAY })).status).toBe(200)
    const page = await agent.get('/dashboard/payouts')
    expect(page.html).toContain('The balance and Payouts of live mode.')
    expect(page.html).toContain('data-testid="payouts-balance">FJ$7.00<')
    expect(page.html).toContain('<span class="badge badge-bad">failed</span>')
    expect(page.html).toContain('No payout destination is set in Settings.')
    const table = page.html.slice(page.html.indexOf('<details>'), page.html.indexOf('</details>'))
    expect(rowsOf({ ...page, html: table }).map((row) => /<td>(Failed payout returned|Payout|Payment)/.exec(row)?.[1])).toEqual([
      'Failed payout returned',
      'Payout',
      'Payment',
    ])
    expect(table).toContain('<td>+FJ$7.00</td><td>FJ$7.00</td>')

    const testPage = await testAgent.get('/dashboard/payouts')
    expect(testPage.html).toContain('No payouts in test mode yet.')
    expect(testPage.html).not.toContain(session.id)
  })

  it('pages the payouts and refuses a bad page number', async () => {
    const { agent } = await merchant()
    const bad = await agent.get('/dashboard/payouts?page=0')
    expect(bad.status).toBe(400)
    // 0 is a whole number: the message says the bound it misses.
    expect(bad.html).toContain('Invalid `page`: page must be a whole number of 1 or more.')
    expect((await agent.get('/dashboard/payouts?page=2')).html).toContain('No payouts on this page.')
  })
})
