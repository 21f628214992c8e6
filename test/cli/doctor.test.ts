import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BulaClient } from '../../src/client/bula-client.js'
import type { DoctorReport } from '../../src/schemas/index.js'
import { parseJsonOutput, removeCliConfigDir, runCli, signupMerchant, succeed, type TestMerchant } from '../helpers/cli.js'
import { unlockLive } from '../helpers/http.js'
import { useReceivers, type Receiver } from '../helpers/receiver.js'
import { badBrowserBurst, badCartKeyedCreates, badCreateSession, badWaitForPayment, goodCreateSession, type Shop } from '../helpers/sample-clients.js'
import { startServe, type ServeProcess } from '../helpers/serve-process.js'

// `bula doctor` against a real `bula serve`: a deliberately bad sample
// client breaks every rule it checks and gets each finding and exit 1; a
// good one, whose receiver is HTTPS as in production, gets none and exit 0.
// The good receiver's certificate is made here and trusted by the simulator
// through NODE_EXTRA_CA_CERTS, as a private CA would be.

const hasOpenssl = spawnSync('openssl', ['version']).error === undefined
if (!hasOpenssl) console.warn('openssl is not installed: the good client\'s HTTPS receiver cannot be made, so its test is skipped (sudo apt-get install -y openssl).')

let dir: string
let tls: { key: string; cert: string } | undefined
let serve: ServeProcess
const receiver = useReceivers()

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-doctor-'))
  if (hasOpenssl) {
    const made = spawnSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ])
    expect(made.status, made.stderr.toString()).toBe(0)
    tls = { key: await readFile(path.join(dir, 'key.pem'), 'utf8'), cert: await readFile(path.join(dir, 'cert.pem'), 'utf8') }
  }
  serve = await startServe({ memory: true, env: hasOpenssl ? { NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') } : {} })
})
afterAll(async () => {
  await serve?.stop()
  removeCliConfigDir()
  await rm(dir, { recursive: true, force: true })
})

const typeOf = (body: string): string => (JSON.parse(body) as { type: string }).type
const shopOf = (merchant: TestMerchant): Shop => ({ baseUrl: serve.baseUrl, secretKey: merchant.secret })

/** Waits until the receiver has been sent events of every one of `types`. */
const received = (r: Receiver, types: string[]) =>
  expect.poll(() => types.every((type) => r.requests.some((request) => typeOf(request.body) === type)), { timeout: 15_000 }).toBe(true)

async function doctor(merchant: TestMerchant, ...args: string[]): Promise<{ exitCode: number | undefined; report: DoctorReport; text: string }> {
  const json = await runCli(['doctor', '--json', ...args], { env: merchant.env })
  const text = await runCli(['doctor', ...args], { env: merchant.env })
  expect(text.exitCode).toBe(json.exitCode)
  return { exitCode: json.exitCode, report: parseJsonOutput<DoctorReport>(json), text: text.stdout }
}

describe('bula doctor', () => {
  it('finds every problem of a deliberately bad client, and exits 1', { timeout: 60_000 }, async () => {
    const merchant = await signupMerchant(serve.baseUrl)
    const api = new BulaClient({ baseUrl: serve.baseUrl, apiKey: merchant.secret })
    const shop = shopOf(merchant)
    // Receivers: one refuses the success event and is slow on another; one never verifies; one goes away.
    const flaky = await receiver()
    flaky.respondWith((request) => ({ 'checkout_session.succeeded': 500, 'payment.succeeded': { status: 200, afterMs: 5_300 } })[typeOf(request.body)] ?? 200)
    const refusing = await receiver()
    refusing.respondWith(() => 401)
    const gone = await receiver()
    for (const r of [flaky, refusing, gone]) await api.createWebhookEndpoint({ url: r.url })
    await flaky.waitFor(1)
    await refusing.waitFor(1)
    await gone.waitFor(1)
    await expect.poll(async () => (await api.listWebhookEndpoints()).data.filter((endpoint) => endpoint.status === 'active').length).toBe(2)
    await gone.close()
    expect((await runCli(['settings', 'set', '--no-receipts'], { env: merchant.env })).exitCode).toBe(0)

    // A lost answer, retried with a new key: two sessions.
    expect((await runCli(['faults', 'add', 'POST /v1/checkout-sessions', '--action', 'lose_response'], { env: merchant.env })).exitCode).toBe(0)
    const created = await badCreateSession(shop, { id: '1042', amount: 4550 }, 'http://localhost:3000')
    expect(await badCartKeyedCreates(shop)).toEqual([201, 409])
    await api.payCheckoutSession(created.session.id, { outcome: 'succeeded' })
    await badWaitForPayment(shop, created.session.id)
    expect((await badBrowserBurst(serve.baseUrl, merchant.publishable)).slice(-2)).toEqual([429, 429])
    await received(flaky, ['checkout_session.succeeded', 'payment.succeeded'])
    await expect.poll(async () => (await api.getEvent((await api.listEvents({ type: 'payment.succeeded' })).data[0]!.event_id)).deliveries.every((delivery) => delivery.attempts.length > 0), { timeout: 15_000 }).toBe(true)

    const { exitCode, report, text } = await doctor(merchant)
    expect(exitCode).toBe(1)
    const severities = Object.fromEntries(report.findings.map((finding) => [finding.check, finding.severity]))
    expect(severities).toEqual({
      'create-retried-with-new-key': 'error',
      'idempotency-key-reused': 'error',
      'webhook-error-status': 'error',
      'webhook-no-answer': 'error',
      'webhook-slow': 'warning',
      'webhook-endpoint-unverified': 'error',
      polling: 'warning',
      'retry-after-ignored': 'error',
      'live-verification': 'warning',
      'live-payout-destination': 'warning',
      'live-receipts-off': 'warning',
      'live-http-urls': 'warning',
    })
    for (const finding of report.findings) {
      expect(text).toContain(finding.title)
      expect(text).toContain(`[${finding.check}]`)
      expect(text).toContain(`Fix: ${finding.fix}`)
    }
    expect(text).toContain(`${created.session.id}`)
    expect(text).toMatch(/6 errors, 6 warnings\.$/)

    // --since: the creates were two hours ago on the merchant's clock.
    expect((await runCli(['clock', 'advance', '2h'], { env: merchant.env })).exitCode).toBe(0)
    const recent = await doctor(merchant, '--since', '1h')
    expect(recent.report.findings.map((finding) => finding.check)).not.toContain('create-retried-with-new-key')
    expect(recent.report.since).toBe(recent.report.now - 60 * 60 * 1000)
  })

  it('finds sessions made with no endpoint registered: fulfilment by redirect only', async () => {
    const merchant = await signupMerchant(serve.baseUrl)
    await goodCreateSession(shopOf(merchant), { id: '7', amount: 900 })
    const { exitCode, report } = await doctor(merchant)
    expect(exitCode).toBe(1)
    expect(report.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.check)).toEqual(['no-webhook-endpoint'])
  })

  it.skipIf(!hasOpenssl)('finds nothing in a good client, and exits 0', { timeout: 60_000 }, async () => {
    const merchant = await signupMerchant(serve.baseUrl)
    const api = new BulaClient({ baseUrl: serve.baseUrl, apiKey: merchant.secret })
    const live = await unlockLive(serve.baseUrl, merchant.secret)
    await new BulaClient({ baseUrl: serve.baseUrl, apiKey: live.secret }).updateSettings({
      payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' },
    })
    const https = await receiver('/webhooks', { tls })
    await api.createWebhookEndpoint({ url: https.url })
    await expect.poll(async () => (await api.listWebhookEndpoints()).data[0]!.status).toBe('active')

    // Each create meets a fault and is retried with its order's key: one session per order.
    const orders = [{ id: '1', amount: 1500 }, { id: '2', amount: 2500 }, { id: '3', amount: 3500 }]
    const faults = [{ action: 'lose_response' }, { action: 'reset' }, { action: 'error', status: 503 }]
    for (const [index, order] of orders.entries()) {
      // Set-up over HTTP (bula faults add is run in the test above and has tests of its own).
      await succeed(merchant.api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', ...faults[index]! }), 201)
      const created = await goodCreateSession(shopOf(merchant), order)
      expect(created.attempts).toBe(2)
      await api.payCheckoutSession(created.session.id, { outcome: 'succeeded' })
      // Fulfilled from the webhook; the page fetches the session once when the customer comes back.
      await received(https, ['checkout_session.succeeded'])
      await api.getCheckoutSession(created.session.id)
    }
    expect((await api.listCheckoutSessions()).data).toHaveLength(3)
    await expect.poll(() => https.requests.filter((request) => typeOf(request.body) === 'checkout_session.succeeded').length, { timeout: 15_000 }).toBe(3)

    const { exitCode, report, text } = await doctor(merchant)
    expect(report.findings).toEqual([])
    expect(exitCode).toBe(0)
    expect(text).toContain('No findings')
    expect(report.checked).toMatchObject({ checkoutSessions: 3, webhookEndpoints: 1 })
  })

  it('judges only the integration: the README\'s first payment, made with the CLI, is nothing to fix, and the report says it left it out', { timeout: 60_000 }, async () => {
    const merchant = await signupMerchant(serve.baseUrl)
    const bula = async (...args: string[]) => {
      const result = await runCli(args, { env: merchant.env })
      expect(result.exitCode, result.stderr).toBe(0)
      return result
    }
    const session = parseJsonOutput<{ id: string }>(await bula('sessions', 'create', '--amount', '15.00', '--metadata', 'order=42', '--json'))
    await bula('sessions', 'pay', session.id, '--provider', 'mpaisa')
    await bula('events', 'list')
    await bula('clock', 'advance', '7d')
    await bula('payouts', 'list')
    const invoice = parseJsonOutput<{ id: number }>(await bula('invoices', 'create', '--customer', 'Kai Store Ltd', '--item', 'Kava bowl:2:45.50', '--tax', 'VAT:12.5', '--due', '2026-12-31', '--json'))
    await bula('invoices', 'send', String(invoice.id))
    await bula('invoices', 'pay', String(invoice.id))

    const { exitCode, report, text } = await doctor(merchant)
    expect(report.findings.filter((finding) => finding.severity === 'error')).toEqual([])
    expect(report.findings.map((finding) => finding.check)).not.toContain('live-http-urls')
    expect(exitCode).toBe(0)
    expect(report.checked.checkoutSessions).toBe(0)
    expect(report.checked.bulaCliRequests).toBeGreaterThanOrEqual(8)
    // The two doctor runs before the text one are the CLI's too.
    expect(text).toMatch(/: 0 requests from your integration \(\d+ from the bula CLI left out\), /)
  })

  it('shows each example of its help as a command to type', async () => {
    const help = await runCli(['doctor', '--help'])
    const examples = help.stdout.slice(help.stdout.indexOf('EXAMPLES')).split('\n').slice(1).filter((line) => line.trim() !== '')
    expect(examples).toHaveLength(3)
    for (const line of examples) expect(line).toMatch(/^ {2}\$ bula /)
    expect(help.stdout).toContain('bula CLI')
  })

  it('refuses a --since that is not a duration (exit 2)', async () => {
    const result = await runCli(['doctor', '--since', 'yesterday'], { env: { BULA_BASE_URL: serve.baseUrl, BULA_API_KEY: 'sk_test_none' } })
    expect(result.exitCode).toBe(2)
  })
})
