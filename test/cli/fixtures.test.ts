import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkoutSessionListSchema, checkoutSessionSchema, eventListSchema, type CheckoutSession, type Event } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'

const server = useServe()

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-fixtures-cli-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function fixtureFile(name: string, fixture: unknown): Promise<string> {
  const file = path.join(dir, name)
  await writeFile(file, JSON.stringify(fixture, null, 2))
  return file
}

interface RunOutput {
  fixtures: Array<{ file: string; results: Record<string, any> }> // eslint-disable-line @typescript-eslint/no-explicit-any -- whatever the simulator answered
}

/** Pays a session, refers to it, refuses a second pay as expected. */
const CHECKOUT = {
  description: 'An order paid by M-PAiSA; paying twice is refused.',
  steps: [
    {
      name: 'session',
      method: 'POST',
      path: '/v1/checkout-sessions',
      idempotencyKey: true,
      body: { amount: 2500, currency: 'FJD', metadata: { order_id: '${env:ORDER_ID}' } },
    },
    { name: 'payment', method: 'POST', path: '/_sim/checkout-sessions/${session:id}/pay', body: { outcome: 'succeeded', provider: 'mpaisa' } },
    {
      name: 'second_payment',
      method: 'POST',
      path: '/_sim/checkout-sessions/${payment:checkoutSession.id}/pay',
      body: { outcome: 'succeeded' },
      expect: { status: 409, code: 'invalid_state' },
    },
    { name: 'paid', method: 'GET', path: '/v1/checkout-sessions/${session:id}' },
  ],
}

/**
 * The event types of the merchant's log, oldest first. Read over HTTP, page
 * by page, as the state a command left (a CLI start costs ~0.35 s of CPU);
 * with `cli`, through `bula events list`, which the first test keeps running.
 */
async function eventTypes(merchant: TestMerchant, { cli = false } = {}): Promise<string[]> {
  if (cli) {
    const result = await runCli(['events', 'list', '--limit', '100', '--json'], { env: merchant.env })
    return eventListSchema.parse(parseJsonOutput(result)).data.map((event) => event.type).reverse()
  }
  const newestFirst: Event[] = []
  let startingAfter: string | undefined
  do {
    const page = eventListSchema.parse(await succeed(merchant.api.get(`/_sim/events?limit=100${startingAfter ? `&starting_after=${startingAfter}` : ''}`)))
    newestFirst.push(...page.data)
    startingAfter = page.hasMore ? page.data.at(-1)?.event_id : undefined
  } while (startingAfter !== undefined)
  return newestFirst.map((event) => event.type).reverse()
}

describe('bula fixtures run', () => {
  it('runs the steps with references, environment variables and an expected error, and prints the named results', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = await fixtureFile('checkout.json', CHECKOUT)
    const result = await runCli(['fixtures', 'run', file, '--json'], { env: { ...merchant.env, ORDER_ID: 'A-17' } })
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const { fixtures } = parseJsonOutput<RunOutput>(result)
    expect(fixtures.map((fixture) => fixture.file)).toEqual([file])
    const { session, payment, second_payment: second, paid } = fixtures[0]!.results
    expect(session).toMatchObject({ amount: 2500, metadata: { order_id: 'A-17' }, status: 'pending' })
    expect(payment.paymentIntent).toMatchObject({ provider: 'mpaisa', status: 'succeeded' })
    expect(second).toEqual({ error: { code: 'invalid_state', message: 'This Checkout Session has already succeeded.' } })
    expect((paid as CheckoutSession).status).toBe('succeeded')
    expect(await eventTypes(merchant, { cli: true })).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])

    const human = await runCli(['fixtures', 'run', file], { env: { ...merchant.env, ORDER_ID: 'A-18' } })
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^second_payment\s+POST \/_sim\/checkout-sessions\/cs_\S+\/pay\s+409 invalid_state \(expected\)$/m)
    expect(human.stdout).toMatch(/^Ran 4 steps of 1 file\.$/m)
  })

  it('writes the named results with --out, replacing the last run\'s', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = await fixtureFile('out.json', CHECKOUT)
    const out = path.join(dir, 'results.json')
    await writeFile(out, 'the last run')
    const result = await runCli(['fixtures', 'run', file, file, '--out', out], { env: { ...merchant.env, ORDER_ID: 'B-1' } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(`Ran 8 steps of 2 files; named results in ${out}.`)
    const written = JSON.parse(await readFile(out, 'utf8')) as RunOutput
    expect(written.fixtures.map((fixture) => Object.keys(fixture.results))).toEqual([
      ['session', 'payment', 'second_payment', 'paid'],
      ['session', 'payment', 'second_payment', 'paid'],
    ])
    // Each file ran on its own: two sessions.
    expect(written.fixtures[0]!.results.session.id).not.toBe(written.fixtures[1]!.results.session.id)
  })

  it('writes the named results to standard output for --out -, the steps to stderr, refusing --json, which prints there too', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = await fixtureFile('to-stdout.json', CHECKOUT)
    // Run in the temporary folder, where a file named "-" would land.
    const piped = await runCli(['fixtures', 'run', file, '--out', '-'], { env: { ...merchant.env, ORDER_ID: 'C-1' }, cwd: dir })
    expect(piped.exitCode, piped.stderr).toBe(0)
    // Standard output holds the results alone, as --out FILE writes them.
    const { fixtures } = JSON.parse(piped.stdout) as RunOutput
    expect(fixtures.map((fixture) => Object.keys(fixture.results))).toEqual([['session', 'payment', 'second_payment', 'paid']])
    expect(piped.stderr).toMatch(/^second_payment\s+POST \/_sim\/checkout-sessions\/cs_\S+\/pay\s+409 invalid_state \(expected\)$/m)
    expect(piped.stderr).toMatch(/^Ran 4 steps of 1 file; named results on standard output\.$/m)
    expect(existsSync(path.join(dir, '-'))).toBe(false)

    // Checked before any step runs: no session is made.
    const json = await runCli(['fixtures', 'run', file, '--out', '-', '--json'], { env: { ...merchant.env, ORDER_ID: 'C-2' } })
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'invalid_usage', message: expect.stringContaining('--json cannot also be provided when using --out -') } })
    expect(await eventTypes(merchant)).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
  })

  it('stops at the first unexpected result, naming the file, the step, what was expected and what came', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const failing = await fixtureFile('failing.json', {
      steps: [
        ...CHECKOUT.steps.slice(0, 2),
        { name: 'cancel', method: 'POST', path: '/v1/checkout-sessions/${session:id}/cancel', expect: { code: 'payment_in_progress' } },
        { name: 'never', method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: true, body: { amount: 100, currency: 'FJD' } },
      ],
    })
    const result = await runCli(['fixtures', 'run', failing], { env: { ...merchant.env, ORDER_ID: 'C-1' } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(
        `^fixture_failed: ${failing.replace(/[.\\]/g, '\\$&')}: Step 3 "cancel" \\(POST /v1/checkout-sessions/cs_\\S+/cancel\\): expected the error payment_in_progress, got 409 invalid_state: .+$`,
        'm',
      ),
    )
    // Nothing ran after the failing step.
    const sessions = parseJsonOutput<{ data: unknown[] }>(await runCli(['sessions', 'list', '--json'], { env: merchant.env }))
    expect(sessions.data).toHaveLength(1)

    const json = await runCli(['fixtures', 'run', failing, '--json'], { env: { ...merchant.env, ORDER_ID: 'C-2' } })
    expect(json.exitCode).toBe(1)
    expect(parseJsonOutput(json)).toMatchObject({ error: { code: 'fixture_failed', message: expect.stringContaining('Step 3 "cancel"') } })
  })

  it('keeps the simulator\'s code when a step fails unexpectedly, and checks every file before sending anything', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const refused = await fixtureFile('refused.json', { steps: [{ name: 'tiny', method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: true, body: { amount: 0, currency: 'FJD' } }] })
    const result = await runCli(['fixtures', 'run', refused], { env: merchant.env })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`invalid_request: ${refused}: Step 1 "tiny" (POST /v1/checkout-sessions) failed:`)

    const unset = await runCli(['fixtures', 'run', await fixtureFile('fine.json', { steps: [{ method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: true, body: { amount: 100, currency: 'FJD' } }] }), await fixtureFile('unset.json', CHECKOUT)], {
      env: merchant.env,
    })
    expect(unset.exitCode).toBe(1)
    expect(unset.stderr).toContain('unset.json: Step 1 "session": ${env:ORDER_ID}: the environment variable ORDER_ID is not set.')
    expect(await eventTypes(merchant)).toEqual([])
    // Over HTTP: the test before this one reads the sessions with `bula sessions list`.
    const sessions = checkoutSessionListSchema.parse(await succeed(merchant.api.get('/v1/checkout-sessions')))
    expect(sessions.data).toEqual([])

    const missing = await runCli(['fixtures', 'run'], { env: merchant.env })
    expect(missing.exitCode).toBe(2)
  })
})

describe('bula events export --as-fixture', () => {
  /**
   * Activity of every kind the exporter reproduces, made over HTTP with the
   * requests the CLI would send: this test is about the export and its
   * replay, and the commands a merchant would use (bula webhooks create and
   * rotate, sessions create and pay, trigger, invoices create, send and pay,
   * settings set, payouts request) have tests of their own.
   */
  async function recordActivity(merchant: TestMerchant): Promise<void> {
    const { api } = merchant
    const idempotent = () => ({ headers: { 'idempotency-key': randomUUID() } })
    // Nothing listens on port 9: the endpoint stays pending, and the events are logged all the same.
    const { endpoint } = await succeed(api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' }))
    const processing = await api.createSession({ metadata: { order_id: '1' } })
    // Not createSession: its FJD amount would come along with the quote.
    const quoted = checkoutSessionSchema.parse(
      await succeed(api.post('/v1/checkout-sessions', { quote: { amount: 1000, currency: 'USD' }, successUrl: 'https://kai.fj/ok', cancelUrl: 'https://kai.fj/cart' }, idempotent()), 201),
    )
    await succeed(api.post(`/_sim/checkout-sessions/${processing.id}/pay`, { outcome: 'processing', provider: 'mpaisa' }))
    await succeed(api.post(`/_sim/checkout-sessions/${quoted.id}/pay`, { outcome: 'failed', provider: 'mycash' }))
    await api.paySession(processing.id)
    // What the recipe of `bula trigger checkout_session.cancelled` does.
    const cancelled = await api.createSession({ metadata: { created_by: 'bula trigger' } })
    await succeed(api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`))
    const invoice = await api.createInvoice({ customerName: 'Nadi Hotel', items: [{ description: 'Mats', quantity: 3, unitPrice: 2500 }], taxLabel: 'VAT', taxPercent: 15, dueDate: '2026-12-31' })
    await succeed(api.post(`/v1/invoices/${invoice.id}/send`, undefined, idempotent()))
    await succeed(api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'failed' }))
    await succeed(api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'succeeded', provider: 'mpaisa' }))
    await succeed(api.patch('/_sim/settings', { payoutSchedule: 'manual' }))
    await succeed(api.post('/_sim/payouts/request'), 201)
    await succeed(api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate`))
  }

  it('replays recorded activity on a fresh merchant: the same event types in the same order', async () => {
    const recorded = await signupMerchant(server().baseUrl)
    await recordActivity(recorded)
    const original = await eventTypes(recorded)
    expect(new Set(original)).toEqual(
      new Set([
        'webhook.verified',
        'payment.processing',
        'payment.succeeded',
        'payment.failed',
        'checkout_session.succeeded',
        'checkout_session.failed',
        'checkout_session.cancelled',
        'disbursement.sent',
      ]),
    )

    const file = path.join(dir, 'recorded.json')
    const exported = await runCli(['events', 'export', '--as-fixture', '--out', file, '--json'], { env: recorded.env })
    expect(exported.exitCode, exported.stdout + exported.stderr).toBe(0)
    expect(parseJsonOutput(exported)).toMatchObject({ file, events: original.length, skipped: [] })

    const fresh = await signupMerchant(server().baseUrl)
    const replayed = await runCli(['fixtures', 'run', file], { env: fresh.env })
    expect(replayed.exitCode, replayed.stdout + replayed.stderr).toBe(0)
    expect(await eventTypes(fresh)).toEqual(original)

    // The fixture is readable: steps say what they make.
    const fixture = JSON.parse(await readFile(file, 'utf8')) as { description: string; steps: Array<{ description?: string }> }
    expect(fixture.description).toContain(`${recorded.merchantId}) that made ${original.length} events from `)
    // Its times read as every time the CLI shows (issue 14): Fiji time with UTC beside it.
    expect(fixture.description).toMatch(/ from \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d FJT \(.*UTC\) to /)
    expect(fixture.steps.every((step) => typeof step.description === 'string')).toBe(true)
    // The 90 s timeout is from when this test made fourteen CLI starts in a row (twenty took 28 s on a loaded CI); two remain.
  }, 90_000)

  it('prints the fixture without --out, exports the newest events with --limit, and keeps an existing file', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Set-up in this process (bula trigger has tests of its own): what it runs for these two events.
    await merchant.trigger('checkout_session.succeeded')
    await merchant.trigger('checkout_session.cancelled')
    const printed = await runCli(['events', 'export', '--as-fixture', '--limit', '1'], { env: merchant.env })
    expect(printed.exitCode, printed.stderr).toBe(0)
    const fixture = JSON.parse(printed.stdout) as { steps: Array<{ method: string; path: string }> }
    expect(fixture.steps.map((step) => `${step.method} ${step.path}`)).toEqual(['POST /v1/checkout-sessions', 'POST /v1/checkout-sessions/${session_1:id}/cancel'])

    const file = await fixtureFile('kept.json', { steps: [] })
    const kept = await runCli(['events', 'export', '--as-fixture', '--out', file], { env: merchant.env })
    expect(kept.exitCode).toBe(1)
    expect(kept.stderr).toContain(`file_exists: ${file} exists: add --force to overwrite it. (param: out)`)
    const forced = await runCli(['events', 'export', '--as-fixture', '--out', file, '--force'], { env: merchant.env })
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(forced.stdout).toMatch(/^Wrote 4 steps remaking 4 of 4 events to .+kept\.json\.$/m)
  })

  it('writes the fixture to standard output for --out -, the count to stderr, refusing --json, which prints there too', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await merchant.trigger('checkout_session.cancelled')
    const file = path.join(dir, 'beside-stdout.json')
    expect((await runCli(['events', 'export', '--as-fixture', '--out', file], { env: merchant.env })).exitCode).toBe(0)
    // Run in the temporary folder, where a file named "-" would land.
    const piped = await runCli(['events', 'export', '--as-fixture', '--out', '-'], { env: merchant.env, cwd: dir })
    expect(piped.exitCode, piped.stderr).toBe(0)
    // execa drops the final newline the file has.
    expect(`${piped.stdout}\n`).toBe(await readFile(file, 'utf8'))
    expect(piped.stderr).toBe('Wrote 2 steps remaking 1 of 1 event to standard output.')
    expect(existsSync(path.join(dir, '-'))).toBe(false)

    const json = await runCli(['events', 'export', '--as-fixture', '--out', '-', '--json'], { env: merchant.env })
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'invalid_usage', message: expect.stringContaining('--json cannot also be provided when using --out -') } })
  })

  it('says so when there is nothing to export, and needs --as-fixture', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const empty = await runCli(['events', 'export', '--as-fixture'], { env: merchant.env })
    expect(empty.exitCode).toBe(1)
    expect(empty.stderr).toContain('nothing_to_export: Nothing to export: in test mode no events are recorded.')
    expect((await runCli(['events', 'export'], { env: merchant.env })).exitCode).toBe(2)
  })
})
