import { describe, expect, it } from 'vitest'
import { client, endpointsActive, signupMerchant, useTestServer } from '../helpers/http.js'
import { startReceiver } from '../helpers/receiver.js'

let counter = 0
const key = () => ({ headers: { 'idempotency-key': `state-${++counter}` } })

/** A merchant with one of everything: sessions (paid, cancelled, pending), an invoice, a payout, an endpoint, events and deliveries. */
async function busyMerchant() {
  const { keys } = await signupMerchant(server().baseUrl)
  const api = client(server().baseUrl, keys.secret)
  const receiver = await startReceiver()
  await api.post('/v1/webhook-endpoints', { url: receiver.url })
  await receiver.waitFor(1)
  await endpointsActive(api)
  await api.patch('/_sim/settings', { payoutSchedule: 'manual', displayName: 'Busy Bula' })
  const paid = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD', metadata: { order: '1' } }, key())).body
  await api.post(`/_sim/checkout-sessions/${paid.id}/pay`, { outcome: 'succeeded' })
  const cancelled = (await api.post('/v1/checkout-sessions', { amount: 200, currency: 'FJD' }, key())).body
  await api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`)
  await api.post('/v1/checkout-sessions', { amount: 300, currency: 'FJD' }, key())
  const invoice = (await api.post('/v1/invoices', { customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 3, unitPrice: 2500 }] }, key())).body
  await api.post(`/v1/invoices/${invoice.id}/send`, undefined, key())
  await api.post('/_sim/payouts/request')
  await receiver.waitFor(5)
  await receiver.close()
  return { keys, api }
}

/** Everything a merchant can read through the API and the stand-in, to compare before and after. */
async function snapshot(api: ReturnType<typeof client>) {
  const events = (await api.get('/_sim/events?limit=100')).body.data
  return {
    me: (await api.get('/v1/merchants/me')).body,
    settings: (await api.get('/_sim/settings')).body,
    sessions: (await api.get('/v1/checkout-sessions?limit=100')).body,
    invoices: (await api.get('/v1/invoices?limit=100')).body,
    payouts: (await api.get('/v1/payouts?limit=100')).body,
    endpoints: (await api.get('/v1/webhook-endpoints')).body,
    events,
    deliveries: await Promise.all(events.map(async (e: { event_id: string }) => (await api.get(`/_sim/events/${e.event_id}`)).body)),
    emails: (await api.get('/_sim/emails')).body,
  }
}

const server = useTestServer()
describe('/_sim/state', () => {
  it('round-trips every object through export → reset → import', async () => {
    const { api } = await busyMerchant()
    const before = await snapshot(api)
    expect(before.sessions.data).toHaveLength(3)
    expect(before.events.length).toBeGreaterThan(4)

    const exported = await api.get('/_sim/state')
    expect(exported.status).toBe(200)
    expect(exported.body).toMatchObject({ format: 'bula-state', version: 1 })
    expect(JSON.stringify(exported.body)).not.toContain('sk_test_')

    const reset = await api.post('/_sim/state/reset')
    expect(reset.status).toBe(200)
    const empty = await snapshot(api)
    expect(empty.sessions.data).toEqual([])
    expect(empty.invoices.data).toEqual([])
    expect(empty.payouts.data).toEqual([])
    expect(empty.events).toEqual([])
    expect(empty.me.balance).toBe(0)
    // The key doing the reset still works, and so do the settings.
    expect(empty.settings.displayName).toBe('Busy Bula')

    const imported = await api.post('/_sim/state/import', exported.body)
    expect(imported.status).toBe(200)
    expect(await snapshot(api)).toEqual(before)

    // Ids keep counting after a reset: a new invoice never reuses one.
    const next = (await api.post('/v1/invoices', { customerName: 'X', dueDate: '2026-12-31', items: [{ description: 'Y', quantity: 1, unitPrice: 1 }] }, key())).body
    expect(next.id).toBeGreaterThan(before.invoices.data[0].id)
  })

  it('refuses another merchant’s state, and anything that is not a state file', async () => {
    const a = await busyMerchant()
    const b = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const exported = (await a.api.get('/_sim/state')).body
    const refused = await b.post('/_sim/state/import', exported)
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('merchantId')
    const junk = await b.post('/_sim/state/import', { hello: 'world' })
    expect(junk.status).toBe(400)
    expect(junk.body.error.code).toBe('invalid_request')
    // Nothing of a's was touched.
    expect((await a.api.get('/v1/checkout-sessions')).body.data).toHaveLength(3)
  })
})
