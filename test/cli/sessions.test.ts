import { describe, expect, it } from 'vitest'
import {
  checkoutSessionListSchema,
  checkoutSessionSchema,
  clockSchema,
  payResponseSchema,
  type CheckoutSession,
} from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'

const MINUTE = 60 * 1000
const HOUR = 60 * MINUTE

const server = useServe()

const sessions = (merchant: Pick<TestMerchant, 'env'>, args: string[]) => runCli(['sessions', ...args], { env: merchant.env })

async function create(merchant: TestMerchant, args: string[]): Promise<CheckoutSession> {
  const result = await sessions(merchant, ['create', ...args, '--json'])
  expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  return checkoutSessionSchema.parse(parseJsonOutput(result))
}

describe('sessions create', () => {
  it('creates an FJD session with metadata and an expiry on the merchant\'s clock', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // A clock far from real time shows that --expires-in counts from the merchant's clock.
    expect((await runCli(['clock', 'advance', '3d'], { env: merchant.env })).exitCode).toBe(0)
    const session = await create(merchant, [
      '--amount',
      '15.00',
      '--metadata',
      'order_id=1234',
      '--metadata',
      'filter=size=XL&colour=red',
      '--expires-in',
      '2h',
      '--success-url',
      'https://kaistore.fj/thanks',
    ])
    const clock = clockSchema.parse(parseJsonOutput(await runCli(['clock', 'show', '--json'], { env: merchant.env })))

    expect(session).toMatchObject({
      status: 'pending',
      mode: 'test',
      amount: 1500,
      currency: 'FJD',
      metadata: { order_id: '1234', filter: 'size=XL&colour=red' },
      successUrl: 'https://kaistore.fj/thanks',
    })
    expect(session.hostedUrl).toBe(`${server().baseUrl}/pay/${session.id}`)
    expect(session.expiresAt - session.createdAt).toBeGreaterThan(2 * HOUR - 5_000)
    expect(session.expiresAt - session.createdAt).toBeLessThanOrEqual(2 * HOUR)
    expect(Math.abs(clock.now - session.createdAt)).toBeLessThan(60_000)
  })

  it('prints the id, status, amount, hosted URL and expiry', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await sessions(merchant, ['create', '--amount', '1234.5'])
    expect(result.exitCode, result.stderr).toBe(0)
    const id = /^id:\s+(cs_\S+)$/m.exec(result.stdout)?.[1]
    expect(id).toBeDefined()
    expect(result.stdout).toMatch(/^status:\s+pending$/m)
    expect(result.stdout).toMatch(/^amount:\s+FJ\$1,234\.50$/m)
    expect(result.stdout).toContain(`hosted url: ${server().baseUrl}/pay/${id}`)
    expect(result.stdout).toMatch(/^expires:\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d UTC\)$/m)
  })

  it.each([
    ['25.00USD', { amount: 2500, currency: 'USD' }],
    ['25USD', { amount: 2500, currency: 'USD' }],
    ['25.5 AUD', { amount: 2550, currency: 'AUD' }],
  ] as const)('creates a session priced with the quote %j', async (quote, expected) => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await create(merchant, ['--quote', quote])
    expect(session.quote).toMatchObject(expected)
    // Converted at the locked rate, to the nearest cent.
    expect(Math.abs(session.amount - expected.amount * Number(session.quote?.rate))).toBeLessThanOrEqual(0.5)
  })

  it('replays a create sent again with the same --idempotency-key', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const first = await create(merchant, ['--amount', '20', '--idempotency-key', 'order-1'])
    const again = await create(merchant, ['--amount', '20', '--idempotency-key', 'order-1'])
    expect(again.id).toBe(first.id)
    const other = await create(merchant, ['--amount', '20'])
    expect(other.id).not.toBe(first.id)
  })

  it('refuses an amount with a third decimal before sending anything', async () => {
    // Nothing listens on port 9: a request would fail with connection_failed (exit 1).
    const offline = { env: { BULA_BASE_URL: 'http://127.0.0.1:9', BULA_API_KEY: 'sk_test_none' } }
    const result = await sessions(offline, ['create', '--amount', '1.234'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Invalid amount "1.234": give dollars with at most 2 decimal places')
    // The limits, in the dollars the user typed (issue 14), before anything is sent.
    for (const [amount, message] of [
      ['0', 'Invalid amount "0": it must be at least FJ$0.01.'],
      ['99999999', 'Invalid amount "99999999": it must be under FJ$5,000.00 (at most FJ$4,999.99).'],
    ]) {
      const refused = await sessions(offline, ['create', '--amount', amount!])
      expect(refused.exitCode).toBe(2)
      expect(refused.stderr.replace(/\s*›\s*/g, ' ')).toContain(message)
    }

    const json = await sessions(offline, ['create', '--amount', '1.234', '--json'])
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toMatchObject({ error: { code: 'invalid_usage' } })
  })

  it('needs exactly one of --amount and --quote', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const neither = await sessions(merchant, ['create'])
    expect(neither.exitCode).toBe(2)
    expect(neither.stderr).toContain('--amount, --quote')
    expect((await sessions(merchant, ['create', '--amount', '1', '--quote', '1USD'])).exitCode).toBe(2)
  })

  it('takes the window\'s ends: 30m (a second more, for the time the request takes) and 24h', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const shortest = await create(merchant, ['--amount', '5', '--expires-in', '30m'])
    expect(shortest.expiresAt - shortest.createdAt).toBeGreaterThanOrEqual(30 * MINUTE)
    expect(shortest.expiresAt - shortest.createdAt).toBeLessThanOrEqual(30 * MINUTE + 1_000)
    const longest = await create(merchant, ['--amount', '5', '--expires-in', '24h'])
    expect(longest.expiresAt - longest.createdAt).toBeGreaterThan(24 * HOUR - 5_000)
    expect(longest.expiresAt - longest.createdAt).toBeLessThanOrEqual(24 * HOUR)
  })

  // It used to pass on the simulator's refusal, which named `expiresAt` and the merchant's clock in milliseconds.
  it('refuses an out-of-window expiry as a usage error naming the flag, before any call', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    for (const expiresIn of ['25h', '10m']) {
      const result = await sessions(merchant, ['create', '--amount', '5', '--expires-in', expiresIn])
      expect(result.exitCode).toBe(2)
      // oclif wraps the message at the terminal's width, each line after ` › `.
      expect(result.stderr.replace(/\s*›\s*/g, ' ')).toContain(`Invalid --expires-in "${expiresIn}": a Checkout Session expires 30m to 24h after it is made`)
    }
    expect((await sessions(merchant, ['list', '--json'])).stdout).toContain('"data": []')
  })

  it('refuses --expires-in with a publishable key as a usage error naming the flag, before any call', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Nothing listens at this address: a request would end in connection_failed, not a usage error.
    const result = await runCli(['sessions', 'create', '--amount', '5', '--expires-in', '1h', '--api-key', merchant.publishable, '--base-url', 'http://127.0.0.1:9'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s*›\s*/g, ' ')).toContain(
      "--expires-in reads the merchant's clock, which needs a secret key: drop --expires-in (the session then expires in 24 hours), or use a secret key (sk_...).",
    )
  })
})

// From here on, set-up is over HTTP (bula sessions create, pay and cancel have tests of their own).
describe('sessions list', () => {
  it('follows nextCursor through every page with --all', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const created = await Promise.all(Array.from({ length: 12 }, (_, index) => merchant.api.createSession({ amount: (index + 1) * 100 })))

    const firstPage = checkoutSessionListSchema.parse(parseJsonOutput(await sessions(merchant, ['list', '--limit', '5', '--json'])))
    expect(firstPage.data).toHaveLength(5)
    expect(firstPage.nextCursor).not.toBeNull()

    const all = checkoutSessionListSchema.parse(parseJsonOutput(await sessions(merchant, ['list', '--limit', '5', '--all', '--json'])))
    expect(all.nextCursor).toBeNull()
    expect(all.data.map((session) => session.id).sort()).toEqual(created.map((session) => session.id).sort())
    const createdAt = all.data.map((session) => session.createdAt)
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a))

    const human = await sessions(merchant, ['list', '--limit', '5'])
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+AMOUNT\s+CREATED\s+EXPIRES$/)
    expect(human.stdout).toContain(`--cursor ${firstPage.nextCursor}`)
    const next = checkoutSessionListSchema.parse(
      parseJsonOutput(await sessions(merchant, ['list', '--limit', '5', '--cursor', firstPage.nextCursor!, '--json'])),
    )
    expect(next.data.map((session) => session.id)).toEqual(all.data.slice(5, 10).map((session) => session.id))
  })

  it('filters by status and creation time', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const [paid, cancelled, pending] = await Promise.all([merchant.api.createSession(), merchant.api.createSession(), merchant.api.createSession()])
    await merchant.api.paySession(paid!.id)
    await succeed(merchant.api.post(`/v1/checkout-sessions/${cancelled!.id}/cancel`))

    const list = async (args: string[]) =>
      checkoutSessionListSchema.parse(parseJsonOutput(await sessions(merchant, ['list', ...args, '--json']))).data.map(
        (session) => session.id,
      )
    expect(await list(['--status', 'succeeded'])).toEqual([paid!.id])
    expect(await list(['--status', 'cancelled'])).toEqual([cancelled!.id])
    expect(await list(['--status', 'pending'])).toEqual([pending!.id])

    const newest = Math.max(paid!.createdAt, cancelled!.createdAt, pending!.createdAt)
    expect(await list(['--from', String(newest + 1)])).toEqual([])
    expect(await list(['--to', new Date(newest).toISOString()])).toHaveLength(3)

    const human = await sessions(merchant, ['list', '--status', 'failed'])
    expect(human.stdout).toBe('No Checkout Sessions.')
  })

  it('refuses a bad --from as a usage error', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await sessions(merchant, ['list', '--from', 'yesterday'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Invalid time "yesterday"')
  })
})

describe('sessions get, pay, cancel and open', () => {
  it('gets a session', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession({ amount: 725, metadata: { order_id: '77' } })
    const got = checkoutSessionSchema.parse(parseJsonOutput(await sessions(merchant, ['get', session.id, '--json'])))
    expect(got).toEqual(session)

    const human = await sessions(merchant, ['get', session.id])
    expect(human.stdout).toMatch(/^amount:\s+FJ\$7\.25$/m)
    expect(human.stdout).toMatch(/^metadata:\s+order_id=77$/m)

    const missing = await sessions(merchant, ['get', 'cs_doesnotexist'])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toMatch(/^not_found: /)
  })

  it.each([
    ['succeeded', 'succeeded', 'succeeded'],
    ['failed', 'failed', 'failed'],
    ['processing', 'pending', 'processing'],
  ] as const)('pays with outcome %s', async (outcome, sessionStatus, intentStatus) => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession()
    const result = await sessions(merchant, ['pay', session.id, '--outcome', outcome, '--provider', 'mpaisa', '--json'])
    expect(result.exitCode, result.stdout).toBe(0)
    const paid = payResponseSchema.parse(parseJsonOutput(result))
    expect(paid.checkoutSession).toMatchObject({ id: session.id, status: sessionStatus })
    expect(paid.paymentIntent).toMatchObject({ checkoutSessionId: session.id, provider: 'mpaisa', status: intentStatus, amount: 1500 })
  })

  it('pays with a card and succeeded by default, and a processing payment blocks cancel until it ends', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession()
    await merchant.api.paySession(session.id, 'processing')

    const blocked = await sessions(merchant, ['cancel', session.id])
    expect(blocked.exitCode).toBe(1)
    expect(blocked.stderr).toMatch(/^payment_in_progress: /)

    const finished = await sessions(merchant, ['pay', session.id])
    expect(finished.exitCode, finished.stderr).toBe(0)
    expect(finished.stdout).toMatch(/^status:\s+succeeded$/m)
    expect(finished.stdout).toMatch(/^provider:\s+card$/m)
    expect(finished.stdout).toMatch(/^payment status:\s+succeeded$/m)
  })

  it('cancels a pending session once, then answers invalid_state', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession()
    const cancelled = await sessions(merchant, ['cancel', session.id, '--json'])
    expect(cancelled.exitCode, cancelled.stdout).toBe(0)
    expect(checkoutSessionSchema.parse(parseJsonOutput(cancelled))).toMatchObject({ id: session.id, status: 'cancelled' })

    const again = await sessions(merchant, ['cancel', session.id])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toMatch(/^invalid_state: \S/)
    expect(again.stdout).toBe('')
  })

  it('prints the hosted URL with open --print', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession()
    const result = await sessions(merchant, ['open', session.id, '--print'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(session.hostedUrl)
  })
})
