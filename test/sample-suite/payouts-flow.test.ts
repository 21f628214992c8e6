// The second file of the sample suite: its own simulator, merchant and clock,
// running in parallel with checkout-flow.test.ts.
import { startSimulator, type Simulator } from 'bula-tools/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'

let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator()
})
afterAll(() => sim.close())

it('sweeps a paid session into a Payout at the next weekly run', async () => {
  const shop = await sim.createMerchant('individual')
  const headers = { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json' }
  const session = (await (
    await fetch(`${sim.baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'p-1' },
      body: JSON.stringify({ amount: 4200, currency: 'FJD' }),
    })
  ).json()) as { id: string }
  await fetch(`${sim.baseUrl}/_sim/checkout-sessions/${session.id}/pay`, { method: 'POST', headers, body: JSON.stringify({ outcome: 'succeeded' }) })
  // A week always contains a Monday 00:00 UTC, whatever day the test runs.
  await sim.clock(shop).advance(7 * 24 * 60 * 60 * 1000)
  const payouts = (await (await fetch(`${sim.baseUrl}/v1/payouts`, { headers })).json()) as { data: { amount: number; rail: string }[] }
  expect(payouts.data).toEqual([expect.objectContaining({ amount: 4200, rail: 'wallet', status: 'paid' })])
  expect(sim.events(shop, { type: 'disbursement.sent' })).toHaveLength(1)
})
