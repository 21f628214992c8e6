import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Tier } from '../../src/schemas/index.js'
import { startSimulator, type Simulator } from '../../server/testing.js'

let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator()
})
afterAll(() => sim.close())

// `createMerchant('gold')` used to sign up a merchant of tier gold, whose data `bula serve --import` then refused, and
// a mistyped merchant id moved no clock and had no events, without a word.
describe('bula-tools/testing refuses what the API refuses', () => {
  it.each([
    ['a tier the API has no such thing as', 'gold', {}, 'createMerchant: invalid tier: '],
    ['an empty name', 'business', { name: '' }, 'createMerchant: invalid name: '],
    ['an e-mail that is none', 'individual', { email: 'not-an-email' }, 'createMerchant: invalid email: '],
  ])('createMerchant with %s', async (_name, tier, details, message) => {
    await expect(sim.createMerchant(tier as Tier, details)).rejects.toThrow(message)
  })

  it.each([-5, 0, 1.5, Number.NaN])('startSimulator refuses a webhookTimeoutMs of %s', async (webhookTimeoutMs) => {
    await expect(startSimulator({ webhookTimeoutMs })).rejects.toThrow(`startSimulator: webhookTimeoutMs must be a whole number of milliseconds above 0, not ${String(webhookTimeoutMs)}.`)
  })

  it('names a merchant id it does not know in clock() and events(), and takes one it knows', async () => {
    expect(() => sim.clock('ms_typo')).toThrow('No merchant "ms_typo" in this simulator')
    expect(() => sim.events('ms_typo')).toThrow('No merchant "ms_typo" in this simulator')
    const shop = await sim.createMerchant('business', { name: 'Kai Store', email: 'kai@shop.test' })
    expect((await sim.clock(shop.id).advance(1_000)).offsetMs).toBe(1_000)
    expect(sim.events(shop)).toEqual([])
  })
})
