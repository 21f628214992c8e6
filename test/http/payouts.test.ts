import { describe, expect, it } from 'vitest'
import { DAY, HOUR, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

// A Sunday, 10:00 UTC: the next Monday 00:00 UTC is 14 hours away.
const SUNDAY = Date.UTC(2026, 10, 22, 10, 0, 0)
const utc = (iso: string) => Date.parse(`${iso}T00:00:00Z`)

// A fresh simulator and clock for each test: the tests move the clock across settlement runs.
const server = useTestServer(() => ({ wall: new ManualWallClock(SUNDAY) }), { per: 'test' })
let counter = 0

async function merchant(tier: 'business' | 'individual' = 'business') {
  const { keys } = await signupMerchant(server().baseUrl, tier)
  return { keys, ...tools(keys.secret) }
}

function tools(secret: string) {
  const api = client(server().baseUrl, secret)
  const pay = async (amount: number) => {
    const session = (await api.post('/v1/checkout-sessions', { amount, currency: 'FJD' }, { headers: { 'idempotency-key': `p${++counter}` } })).body
    const paid = await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    expect(paid.body.checkoutSession.status).toBe('succeeded')
  }
  const advanceTo = async (iso: string) => (await api.post('/_sim/clock/advance', { to: Date.parse(iso) })).body
  const payouts = async () => (await api.get('/v1/payouts?limit=100')).body.data
  const events = async (type: string) => (await api.get(`/_sim/events?type=${type}&limit=100`)).body.data.reverse()
  const balance = async () => (await api.get('/v1/merchants/me')).body.balance
  return { api, pay, advanceTo, payouts, events, balance }
}

describe('settlement on the merchant clock', () => {
  it('weekly by default: Mondays 00:00 UTC, the whole balance in one Payout, none for a zero balance', async () => {
    const { pay, advanceTo, payouts, events, balance } = await merchant()
    await pay(1500)
    await pay(2500)
    expect(await balance()).toBe(4000)
    await advanceTo('2026-11-22T23:59:59Z')
    expect(await payouts()).toEqual([])
    const ran = await advanceTo('2026-11-23T00:00:00Z')
    expect(ran.ran).toContainEqual(expect.objectContaining({ kind: 'settlement.run', at: utc('2026-11-23') }))
    const [payout] = await payouts()
    expect(payout).toEqual({
      id: expect.stringMatching(/^po_/),
      amount: 4000,
      rail: 'bank_transfer',
      status: 'paid',
      paidAt: utc('2026-11-23'),
      failureReason: null,
      createdAt: utc('2026-11-23'),
      mode: 'test',
      sentAt: utc('2026-11-23'),
    })
    expect(await balance()).toBe(0)
    const [sent] = await events('disbursement.sent')
    expect(sent).toMatchObject({ mode: 'test', createdAt: utc('2026-11-23'), data: { object: payout } })
    // Next Monday: nothing earned, nothing paid out.
    await advanceTo('2026-12-01T00:00:00Z')
    expect(await payouts()).toHaveLength(1)
  })

  it('pays an individual account to its wallet', async () => {
    const { pay, advanceTo, payouts } = await merchant('individual')
    await pay(999)
    await advanceTo('2026-11-23T00:00:00Z')
    expect((await payouts())[0]).toMatchObject({ rail: 'wallet', amount: 999 })
  })

  it('daily: every run in between happens, in order, and what ran is listed', async () => {
    const { api, pay, payouts } = await merchant()
    await api.patch('/_sim/settings', { payoutSchedule: 'daily' })
    for (let day = 0; day < 5; day++) {
      await pay(100 * (day + 1))
      await api.post('/_sim/clock/advance', { ms: DAY })
    }
    const made = await payouts()
    expect(made.map((p: { amount: number }) => p.amount)).toEqual([100, 200, 300, 400, 500])
    expect(made.map((p: { createdAt: number }) => new Date(p.createdAt).toISOString())).toEqual([
      '2026-11-23T00:00:00.000Z',
      '2026-11-24T00:00:00.000Z',
      '2026-11-25T00:00:00.000Z',
      '2026-11-26T00:00:00.000Z',
      '2026-11-27T00:00:00.000Z',
    ])
    await pay(700)
    const result = await api.post('/_sim/clock/advance', { ms: 35 * DAY })
    const runs = result.body.ran.filter((r: { kind: string }) => r.kind === 'settlement.run')
    expect(runs).toHaveLength(35)
    expect(runs[0].description).toMatch(/FJ\$7\.00/)
    expect(runs[1].description).toMatch(/nothing to pay out/)
  })

  it('monthly: on the 1st, across a month and a year boundary', async () => {
    const { api, pay, advanceTo, payouts } = await merchant()
    await api.patch('/_sim/settings', { payoutSchedule: 'monthly' })
    await pay(1000)
    await advanceTo('2026-11-30T23:00:00Z')
    expect(await payouts()).toEqual([])
    await pay(500)
    await advanceTo('2026-12-15T00:00:00Z')
    await pay(250)
    await advanceTo('2027-01-01T00:00:00Z')
    const made = await payouts()
    expect(made.map((p: { amount: number; createdAt: number }) => [p.amount, p.createdAt])).toEqual([
      [1500, utc('2026-12-01')],
      [250, utc('2027-01-01')],
    ])
  })

  it('fortnightly: every other Monday from the documented anchor, alternating', async () => {
    const { api, pay, advanceTo, payouts } = await merchant()
    await api.patch('/_sim/settings', { payoutSchedule: 'fortnightly' })
    // Pay 100 every Sunday for six weeks.
    const sundays = ['2026-11-22', '2026-11-29', '2026-12-06', '2026-12-13', '2026-12-20', '2026-12-27']
    for (const [i, sunday] of sundays.entries()) {
      if (i > 0) await advanceTo(`${sunday}T10:00:00Z`)
      await pay(100)
    }
    await advanceTo('2027-01-05T00:00:00Z')
    const made = await payouts()
    expect(made.map((p: { amount: number; createdAt: number }) => [new Date(p.createdAt).toISOString().slice(0, 10), p.amount])).toEqual([
      ['2026-11-30', 200],
      ['2026-12-14', 200],
      ['2026-12-28', 200],
    ])
  })

  it('manual: only on request, and only on the manual schedule', async () => {
    const { api, pay, advanceTo, payouts } = await merchant()
    await pay(800)
    const refused = await api.post('/_sim/payouts/request')
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('payout_schedule_not_manual')
    await api.patch('/_sim/settings', { payoutSchedule: 'manual' })
    await advanceTo('2026-12-31T00:00:00Z')
    expect(await payouts()).toEqual([])
    const requested = await api.post('/_sim/payouts/request')
    expect(requested.status).toBe(201)
    expect(requested.body.payout).toMatchObject({ amount: 800, status: 'paid', createdAt: utc('2026-12-31') })
    const empty = await api.post('/_sim/payouts/request')
    expect(empty.status).toBe(409)
    expect(empty.body.error.code).toBe('no_balance')
  })
})

describe('live mode payouts', () => {
  it('pending at the run, sent by the daily disbursement run, then paid; a failure returns the amount to the next Payout', async () => {
    const { keys } = await merchant()
    const live = tools((await unlockLive(server().baseUrl, keys.secret)).secret)
    await live.api.patch('/_sim/settings', {
      payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kava Kitchen Ltd', accountNumber: '12345678' },
    })
    await live.pay(5000)
    // Test mode has its own balance and Payouts.
    const test = tools(keys.secret)
    await test.pay(100)

    await live.advanceTo('2026-11-23T00:00:00Z')
    const [pending] = await live.payouts()
    expect(pending).toMatchObject({ amount: 5000, status: 'pending', paidAt: null, sentAt: null, failureReason: null, mode: 'live', createdAt: utc('2026-11-23') })
    expect(await test.payouts()).toEqual([expect.objectContaining({ amount: 100, mode: 'test', status: 'paid' })])
    expect((await test.api.get(`/v1/payouts/${pending.id}`)).status).toBe(404)
    expect(await live.events('disbursement.sent')).toEqual([])

    await live.advanceTo('2026-11-23T06:00:00Z')
    const [sentEvent] = await live.events('disbursement.sent')
    expect(sentEvent.data.object).toMatchObject({ id: pending.id, status: 'pending', sentAt: utc('2026-11-23') + 6 * HOUR })
    await live.advanceTo('2026-11-23T07:00:00Z')
    expect((await live.api.get(`/v1/payouts/${pending.id}`)).body).toMatchObject({ status: 'paid', paidAt: utc('2026-11-23') + 7 * HOUR })

    // The next live Payout fails with a given reason.
    expect((await live.api.post('/_sim/payouts/fail-next', { reason: 'Account closed' })).status).toBe(200)
    await live.pay(3000)
    await live.advanceTo('2026-11-30T07:00:00Z')
    const failed = (await live.payouts())[1]
    expect(failed).toMatchObject({ amount: 3000, status: 'failed', failureReason: 'Account closed', paidAt: null })
    const [failedEvent] = await live.events('disbursement.failed')
    expect(failedEvent).toMatchObject({ mode: 'live', createdAt: utc('2026-11-30') + 7 * HOUR, data: { object: failed } })
    expect(await live.balance()).toBe(3000)

    // The amount goes out again with the next Payout.
    await live.pay(1000)
    await live.advanceTo('2026-12-07T07:00:00Z')
    expect((await live.payouts())[2]).toMatchObject({ amount: 4000, status: 'paid', failureReason: null })
  })

  it('fails a live Payout when no destination is set', async () => {
    const { keys } = await merchant()
    const live = tools((await unlockLive(server().baseUrl, keys.secret)).secret)
    await live.pay(700)
    await live.advanceTo('2026-11-23T07:00:00Z')
    expect((await live.payouts())[0]).toMatchObject({ status: 'failed', failureReason: 'No payout destination is set in Settings.' })
  })
})

describe('the Payouts API', () => {
  it('lists oldest first with starting_after and hasMore; gets one; no create route', async () => {
    const { api, pay, payouts } = await merchant()
    await api.patch('/_sim/settings', { payoutSchedule: 'daily' })
    for (let i = 0; i < 5; i++) {
      await pay(100 + i)
      await api.post('/_sim/clock/advance', { ms: DAY })
    }
    const all = await payouts()
    const page1 = (await api.get('/v1/payouts?limit=2')).body
    expect(page1).toEqual({ data: all.slice(0, 2), hasMore: true })
    const page2 = (await api.get(`/v1/payouts?limit=2&starting_after=${page1.data[1].id}`)).body
    expect(page2).toEqual({ data: all.slice(2, 4), hasMore: true })
    const page3 = (await api.get(`/v1/payouts?limit=2&starting_after=${page2.data[1].id}`)).body
    expect(page3).toEqual({ data: all.slice(4), hasMore: false })
    expect((await api.get(`/v1/payouts/${all[0].id}`)).body).toEqual(all[0])
    for (const path of ['/v1/payouts', `/v1/payouts/${all[0].id}`]) {
      const response = await api.post(path, { amount: 100 })
      expect(response.status).toBe(405)
      expect(response.body.error.code).toBe('method_not_allowed')
      expect(response.headers.get('allow')).toBe('GET')
    }
    expect((await api.get('/v1/payouts?starting_after=po_nope')).status).toBe(400)
    expect((await api.get('/v1/payouts?limit=0')).status).toBe(400)
    expect((await api.get('/v1/payouts/po_nope')).status).toBe(404)
    const other = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    expect((await other.get(`/v1/payouts/${all[0].id}`)).status).toBe(404)
  })
})
