import { beforeAll, describe, expect, it } from 'vitest'
import { CREATE_LIMITS } from '../../server/services/rate-limit.js'
import { client, signupMerchant, useTestServer } from '../helpers/http.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

const server = useTestServer({ wall: new ManualWallClock(Date.UTC(2026, 10, 22, 9, 0, 0)) })
beforeAll(async () => {
  // Real time stands still here, so a burst that takes seconds stays inside one minute.
})

let sent = 0

/** Creates `count` sessions with the key, `parallel` at a time, each with a new Idempotency-Key; returns the statuses. */
async function burst(key: string, count: number, parallel: number): Promise<number[]> {
  const api = client(server().baseUrl, key)
  const statuses: number[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++
        const response = await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': `burst-${sent++}` } })
        statuses.push(response.status)
      }
    }),
  )
  return statuses
}

describe('rate limit on creating Checkout Sessions', () => {
  it('lets a publishable key create 120 a minute, then answers 429 with Retry-After', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const statuses = await burst(keys.publishable, CREATE_LIMITS.publishable, 8)
    expect(statuses.filter((s) => s === 201)).toHaveLength(120)
    const refused = await client(server().baseUrl, keys.publishable).post(
      '/v1/checkout-sessions',
      { amount: 100, currency: 'FJD' },
      { headers: { 'idempotency-key': 'one-more' } },
    )
    expect(refused.status).toBe(429)
    expect(refused.body.error.code).toBe('rate_limited')
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // The limit is per key: the secret key of the same merchant is unaffected.
    expect((await burst(keys.secret, 1, 1))[0]).toBe(201)
    // A minute later on the merchant's clock the window is new.
    await client(server().baseUrl, keys.secret).post('/_sim/clock/advance', { ms: 60_000 })
    const after = await client(server().baseUrl, keys.publishable).post(
      '/v1/checkout-sessions',
      { amount: 100, currency: 'FJD' },
      { headers: { 'idempotency-key': 'next-minute' } },
    )
    expect(after.status).toBe(201)
  })

  it('counts a repeated key whose body fails the schema as the replay it is answered with', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const pk = client(server().baseUrl, keys.publishable)
    const repeat = (body: unknown) => pk.post('/v1/checkout-sessions', body, { headers: { 'idempotency-key': 'stored' } })
    expect((await repeat({ amount: 100, currency: 'FJD' })).status).toBe(201)
    expect((await repeat({ amount: 100, currency: 'FJD', metadata: { a: 1 } })).status).toBe(201)
    await burst(keys.publishable, CREATE_LIMITS.publishable - 2, 8)
    const limited = await repeat({ amount: 100, currency: 'FJD', metadata: { a: 1 } })
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('rate_limited')
    // A key with no stored result is refused for its body, as before, and takes nothing.
    const refused = await pk.post('/v1/checkout-sessions', { amount: 'lots' }, { headers: { 'idempotency-key': 'never-stored' } })
    expect(refused.status).toBe(400)
  })

  it('lets a secret key create 10,000 a minute, and refuses the next', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const statuses = await burst(keys.secret, CREATE_LIMITS.secret, 25)
    expect(statuses.filter((s) => s === 201)).toHaveLength(CREATE_LIMITS.secret)
    expect((await burst(keys.secret, 1, 1))[0]).toBe(429)
  }, 120_000)
})
