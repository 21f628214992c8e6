// A merchant's own test suite, as the README shows it: each file starts its
// own simulator through `bula-tools/testing`, so files run in parallel without
// sharing merchants, clocks or data.
import { BulaClient } from 'bula-tools'
import { startSimulator, type Simulator, type TestMerchant } from 'bula-tools/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

let sim: Simulator
let shop: TestMerchant

beforeAll(async () => {
  sim = await startSimulator()
  shop = await sim.createMerchant('business')
})
afterAll(() => sim.close())

describe('my checkout integration', () => {
  it('creates a session, the customer pays, and the success event is recorded', async () => {
    const response = await fetch(`${sim.baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'order-1' },
      body: JSON.stringify({ amount: 2500, currency: 'FJD', metadata: { order: '1' } }),
    })
    const session = (await response.json()) as { id: string }
    await fetch(`${sim.baseUrl}/_sim/checkout-sessions/${session.id}/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'succeeded' }),
    })
    const [succeeded] = sim.events(shop, { type: 'checkout_session.succeeded' })
    expect(succeeded?.data.object).toMatchObject({ id: session.id, metadata: { order: '1' } })
    const me = await new BulaClient({ baseUrl: sim.baseUrl, apiKey: shop.secretKey }).getMe()
    expect(me.balance).toBe(2500)
  })

  it('expires an unpaid session when the clock moves past expiresAt', async () => {
    const response = await fetch(`${sim.baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'order-2' },
      body: JSON.stringify({ amount: 900, currency: 'FJD' }),
    })
    const session = (await response.json()) as { id: string }
    const advanced = await sim.clock(shop).advance(25 * 60 * 60 * 1000)
    expect(advanced.ran.map((action) => action.kind)).toContain('checkout_session.expire')
    expect(sim.events(shop, { type: 'checkout_session.cancelled' }).map((event) => event.data.object.id)).toEqual([session.id])
  })
})
