import { describe, expect, it } from 'vitest'
import {
  merchantMeSchema,
  payoutListSchema,
  payoutResponseSchema,
  payoutSchema,
  type PayoutSchedule,
} from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'

const server = useServe()

const cli = (merchant: TestMerchant, args: string[]) => runCli(args, { env: merchant.env })

/** The command's --json output; it must exit 0. */
async function jsonOf(merchant: TestMerchant, args: string[]): Promise<unknown> {
  const result = await cli(merchant, [...args, '--json'])
  expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  return parseJsonOutput(result)
}

// Set-up over HTTP (bula settings set and bula sessions create/pay have tests of their own).
async function setSchedule(merchant: TestMerchant, schedule: PayoutSchedule): Promise<void> {
  await succeed(merchant.api.patch('/_sim/settings', { payoutSchedule: schedule }))
}

/** A Checkout Session paid by the customer stand-in: the balance grows by `amount` (dollars). */
async function takePayment(merchant: TestMerchant, amount: string): Promise<void> {
  const session = await merchant.api.createSession({ amount: Math.round(Number(amount) * 100) })
  await merchant.api.paySession(session.id)
}

const balanceOf = async (merchant: TestMerchant): Promise<number> =>
  merchantMeSchema.parse(await jsonOf(merchant, ['balance'])).balance

describe('balance and payouts on the manual schedule', () => {
  it('requests a Payout of the whole balance, then lists and gets it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await setSchedule(merchant, 'manual')
    expect(await balanceOf(merchant)).toBe(0)
    await takePayment(merchant, '15.00')
    await takePayment(merchant, '2.50')

    const before = await cli(merchant, ['balance'])
    expect(before.stdout).toMatch(/^mode:\s+test$/m)
    expect(before.stdout).toMatch(/^balance:\s+FJ\$17\.50$/m)
    expect(before.stdout).toMatch(/^payout schedule:\s+manual$/m)

    const requested = await cli(merchant, ['payouts', 'request'])
    expect(requested.exitCode, requested.stderr).toBe(0)
    expect(requested.stdout).toMatch(/^amount:\s+FJ\$17\.50$/m)
    expect(requested.stdout).toMatch(/^status:\s+paid$/m)
    expect(requested.stdout).toMatch(/^rail:\s+bank_transfer$/m)
    const payoutId = /^id:\s+(po_\S+)$/m.exec(requested.stdout)?.[1]
    expect(payoutId).toBeDefined()
    expect(await balanceOf(merchant)).toBe(0)

    const list = payoutListSchema.parse(await jsonOf(merchant, ['payouts', 'list']))
    expect(list).toMatchObject({ hasMore: false, data: [{ id: payoutId, amount: 1750, status: 'paid', mode: 'test' }] })
    expect(payoutSchema.parse(await jsonOf(merchant, ['payouts', 'get', payoutId!]))).toEqual(list.data[0])

    const human = await cli(merchant, ['payouts', 'list'])
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+AMOUNT\s+RAIL\s+CREATED\s+PAID$/)
    expect(human.stdout).toMatch(new RegExp(`^${payoutId}\\s+paid\\s+FJ\\$17\\.50\\s+bank_transfer\\s`, 'm'))

    const nothing = await cli(merchant, ['payouts', 'request'])
    expect(nothing.exitCode).toBe(1)
    expect(nothing.stderr).toMatch(/^no_balance: \S/)
  })

  it('pages oldest first with --starting-after, and --all follows every page', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await setSchedule(merchant, 'manual')
    const ids: string[] = []
    for (const amount of ['1', '2', '3']) {
      await takePayment(merchant, amount)
      ids.push(payoutResponseSchema.parse(await jsonOf(merchant, ['payouts', 'request'])).payout.id)
    }
    const firstPage = payoutListSchema.parse(await jsonOf(merchant, ['payouts', 'list', '--limit', '2']))
    expect(firstPage.data.map((payout) => payout.id)).toEqual(ids.slice(0, 2))
    expect(firstPage.hasMore).toBe(true)
    expect((await cli(merchant, ['payouts', 'list', '--limit', '2'])).stdout).toContain(`--starting-after ${ids[1]}`)

    const rest = payoutListSchema.parse(await jsonOf(merchant, ['payouts', 'list', '--starting-after', ids[1]!]))
    expect(rest.data.map((payout) => payout.amount)).toEqual([300])

    const all = payoutListSchema.parse(await jsonOf(merchant, ['payouts', 'list', '--limit', '1', '--all']))
    expect(all).toMatchObject({ hasMore: false })
    expect(all.data.map((payout) => payout.id)).toEqual(ids)
  })

  it('refuses a request off the manual schedule, and a Payout of nobody else', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await takePayment(merchant, '5')
    const refused = await cli(merchant, ['payouts', 'request'])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/^payout_schedule_not_manual: \S/)

    const missing = await cli(merchant, ['payouts', 'get', 'po_doesnotexist'])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toMatch(/^not_found: /)
  })
})

describe('settlement runs on the clock', () => {
  it('prints the daily settlement runs that a clock advance makes, with the Payout amount', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await setSchedule(merchant, 'daily')
    await takePayment(merchant, '15.00')

    const advanced = await cli(merchant, ['clock', 'advance', '35d'])
    expect(advanced.exitCode, advanced.stderr).toBe(0)
    const runs = advanced.stdout.split('\n').filter((line) => line.includes('settlement run (daily)'))
    // One run each midnight UTC in 35 days; only the first has anything to sweep.
    expect(runs.length).toBeGreaterThanOrEqual(35)
    expect(runs[0]).toMatch(/settlement run \(daily\): test Payout po_\S+ of FJ\$15\.00$/)
    expect(runs.slice(1).every((line) => line.endsWith('settlement run (daily): nothing to pay out'))).toBe(true)

    expect(await balanceOf(merchant)).toBe(0)
    const list = payoutListSchema.parse(await jsonOf(merchant, ['payouts', 'list']))
    expect(list.data).toMatchObject([{ amount: 1500, status: 'paid' }])
  })
})
