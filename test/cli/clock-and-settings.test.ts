import { describe, expect, it } from 'vitest'
import { advanceClockResponseSchema, clockSchema, settingsSchema } from '../../src/schemas/index.js'
import { formatTime } from '../../src/time.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'

const HOUR = 60 * 60 * 1000

const server = useServe()

const cli = (merchant: TestMerchant, args: string[]) => runCli(args, { env: merchant.env })

describe('clock', () => {
  it('shows the time and advances it by 2h', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const before = clockSchema.parse(parseJsonOutput(await cli(merchant, ['clock', 'show', '--json'])))

    const advanced = await cli(merchant, ['clock', 'advance', '2h', '--json'])
    expect(advanced.exitCode, advanced.stdout).toBe(0)
    const result = advanceClockResponseSchema.parse(parseJsonOutput(advanced))
    expect(result.now - before.now).toBeGreaterThanOrEqual(2 * HOUR)
    expect(result.offsetMs - before.offsetMs).toBe(2 * HOUR)

    const show = await cli(merchant, ['clock', 'show'])
    expect(show.stdout).toMatch(/^now:\s+\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d UTC\) \(\d+\)$/m)
    expect(show.stdout).toMatch(/^ahead of real time by:\s+2h$/m)
  })

  it('advances to a time, prints it for people (Fiji and UTC) and as ms, and lists what ran', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Set-up over HTTP (bula clock show has the test above).
    const before = clockSchema.parse(await succeed(merchant.api.get('/_sim/clock')))
    const target = before.now + 3 * 24 * HOUR
    const result = await cli(merchant, ['clock', 'advance', '--to', new Date(target).toISOString()])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(`now: ${formatTime(target)} (${target})`)
    expect(result.stdout).toMatch(/No actions were due\.|^AT\s+KIND\s+DESCRIPTION$/m)
  })

  it('refuses to go back', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await cli(merchant, ['clock', 'advance', '--to', '2000-01-01T00:00:00Z'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^invalid_request: /)
  })

  it('refuses a duration longer than one advance in days, before sending it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await cli(merchant, ['clock', 'advance', '10000d'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s*›\s*/g, ' ')).toContain('Invalid duration "10000d": one advance moves the clock at most 400d')
    expect(result.stderr).not.toContain('ms')
    expect(clockSchema.parse(await succeed(merchant.api.get('/_sim/clock'))).offsetMs).toBe(0)
  })
})

describe('settings', () => {
  it('sets and shows settings', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const set = await cli(merchant, [
      'settings',
      'set',
      '--display-name',
      'Kai Store',
      '--invoice-prefix',
      'INV-2026',
      '--invoice-next-number',
      '42',
      '--no-receipts',
      '--payout-schedule',
      'daily',
      '--payout-destination-bank',
      'BSP:Kai Store Ltd:12345678',
      '--json',
    ])
    expect(set.exitCode, set.stdout).toBe(0)
    const expected = {
      displayName: 'Kai Store',
      invoicePrefix: 'INV-2026',
      invoiceNextNumber: 42,
      receiptsEnabled: false,
      payoutSchedule: 'daily',
      payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' },
    }
    expect(settingsSchema.parse(parseJsonOutput(set))).toMatchObject(expected)
    expect(settingsSchema.parse(parseJsonOutput(await cli(merchant, ['settings', 'show', '--json'])))).toMatchObject(expected)

    const wallet = await cli(merchant, ['settings', 'set', '--payout-destination-wallet', 'mpaisa:+6797123456', '--receipts'])
    expect(wallet.exitCode, wallet.stderr).toBe(0)
    expect(wallet.stdout).toMatch(/^payout destination:\s+mpaisa wallet \+6797123456$/m)
    expect(wallet.stdout).toMatch(/^receipts:\s+on$/m)
    expect(wallet.stdout).toMatch(/^display name:\s+Kai Store$/m)
  })

  it('sets the merchant\'s VAT number, which an invoice without its own takes from Settings and shows, and clears it (issue 14)', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const set = await cli(merchant, ['settings', 'set', '--vat-number', '50-12345-0-1'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(set.stdout).toMatch(/^vat number:\s+50-12345-0-1$/m)
    const invoice = await cli(merchant, ['invoices', 'create', '--customer', 'Mere Vula', '--item', 'Kava bowl:2:45.50', '--tax', 'VAT:12.5', '--due', '2026-12-31'])
    expect(invoice.exitCode, invoice.stderr).toBe(0)
    // The API's vatNumber is the invoice's own (none here); its documents show Settings' (test/http/invoice-vat.test.ts), and so does the CLI.
    expect(invoice.stdout).toMatch(/^vat number:\s+50-12345-0-1 \(from settings\)$/m)
    expect(invoice.stdout).toMatch(/^tax:\s+FJ\$11\.38 \(VAT 12\.5%\)$/m)
    const id = /^id:\s+(\d+)$/m.exec(invoice.stdout)![1]!
    const own = await cli(merchant, ['invoices', 'edit', id, '--vat-number', '61-99999-0-2'])
    expect(own.stdout).toMatch(/^vat number:\s+61-99999-0-2$/m)
    expect((await cli(merchant, ['invoices', 'get', id, '--json'])).stdout).toContain('"vatNumber": "61-99999-0-2"')
    const cleared = await cli(merchant, ['settings', 'set', '--clear-vat-number', '--json'])
    expect(settingsSchema.parse(parseJsonOutput(cleared)).vatNumber).toBeNull()
    await cli(merchant, ['invoices', 'edit', id, '--clear-vat-number'])
    expect((await cli(merchant, ['invoices', 'get', id])).stdout).toMatch(/^vat number:\s+-$/m)
    const both = await cli(merchant, ['settings', 'set', '--clear-vat-number', '--vat-number', 'x'])
    expect(both.exitCode).toBe(2)
  })

  it('passes the simulator\'s validation error through with its param', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await cli(merchant, ['settings', 'set', '--invoice-prefix', 'BILL-', '--json'])
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'invalid_request', param: 'invoicePrefix' } })
  })

  it('refuses a malformed destination as a usage error', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await cli(merchant, ['settings', 'set', '--payout-destination-wallet', 'paypal:+6797123456'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('mpaisa|mycash')
  })
})
