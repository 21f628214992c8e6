import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { StartError, startServer } from '../../server/start.js'
import { exportState, type StateFile } from '../../server/state.js'
import { client, endpointsActive, signupMerchant, useTestServer, withTestServer } from '../helpers/http.js'
import { startReceiver } from '../helpers/receiver.js'
import { tempFolder } from '../helpers/temp.js'

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

  it('imports back a merchant\'s export over 1 MiB, and refuses a body over 16 MiB', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`note${n}`, 'x'.repeat(500)]))
    for (let n = 0; n < 120; n++) await api.post('/v1/checkout-sessions', { amount: 100 + n, currency: 'FJD', metadata }, key())
    const exported = await api.get('/_sim/state')
    expect(JSON.stringify(exported.body).length).toBeGreaterThan(1024 * 1024)
    await api.post('/_sim/state/reset')
    const imported = await api.post('/_sim/state/import', exported.body)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    const listed = (await api.get('/v1/checkout-sessions?limit=100')).body
    expect([listed.data.length, typeof listed.nextCursor]).toEqual([100, 'string'])

    const huge = await api.post('/_sim/state/import', undefined, { rawBody: `{"pad":"${'x'.repeat(16 * 1024 * 1024)}"}` })
    expect(huge.status).toBe(413)
    expect(huge.body.error).toMatchObject({ code: 'payload_too_large', message: 'The body is larger than 16 MiB.' })
    // Every other route keeps the 1 MiB of the spec.
    const big = await api.post('/v1/checkout-sessions', undefined, { ...key(), rawBody: `{"pad":"${'x'.repeat(1024 * 1024)}"}` })
    expect(big.body.error).toMatchObject({ code: 'payload_too_large', message: 'The body is larger than 1 MiB.' })
  })

  it('leaves no trace of a delivery a reset removed while its attempt was out: the export after it imports again', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const receiver = await startReceiver()
    // webhook.verified is answered at once; the payment's events only after the reset.
    receiver.respondWith((_request, index) => (index === 0 ? 200 : { status: 200, afterMs: 1500 }))
    await api.post('/v1/webhook-endpoints', { url: receiver.url })
    await endpointsActive(api)
    const session = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, key())).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    await receiver.waitFor(4)
    expect((await api.post('/_sim/state/reset')).status).toBe(200)
    // The answers arrive, and what they recorded is written.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    await receiver.close()
    const exported = (await api.get('/_sim/state')).body
    expect(exported.collections.events).toEqual([])
    expect(exported.collections.deliveries).toEqual([])
    expect((await api.post('/_sim/state/import', exported)).status).toBe(200)
  })

  it('waits for an advance that waits on a receiver before importing: the imported clock is not moved back', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const receiver = await startReceiver()
    // Verified at once; the payment's three events refused, so their retries come up in the advance, and hang there.
    receiver.respondWith((_request, index) => (index === 0 ? 200 : index <= 3 ? 500 : { status: 200, afterMs: 1500 }))
    await api.post('/v1/webhook-endpoints', { url: receiver.url })
    await endpointsActive(api)
    const session = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, key())).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    await receiver.waitFor(4)
    const exported = (await api.get('/_sim/state')).body
    const ahead = 300 * 24 * 60 * 60 * 1000
    exported.collections.merchants[0].clockOffsetMs += ahead
    const advance = api.post('/_sim/clock/advance', { ms: 60 * 60 * 1000 })
    await receiver.waitFor(5)
    expect((await api.post('/_sim/state/import', exported)).status).toBe(200)
    expect((await advance).status).toBe(200)
    expect((await api.get('/_sim/clock')).body.offsetMs).toBeGreaterThanOrEqual(ahead)
    await receiver.close()
  })

  // Found by an adversarial pass: a file whose clock is ahead moved the merchant's on past settlement runs that then
  // never ran, and the next run, days later, was dated then.
  it('makes the settlement runs an import moves the clock past, each at its own time', async () => {
    const day = 24 * 60 * 60 * 1000
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    await api.patch('/_sim/settings', { payoutSchedule: 'daily' })
    const session = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, key())).body
    const paid = (await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })).body.paymentIntent
    const exported = (await api.get('/_sim/state')).body
    exported.collections.merchants[0].clockOffsetMs += 5 * day
    expect((await api.post('/_sim/state/import', exported)).status).toBe(200)
    const firstRun = Math.floor(paid.updatedAt / day) * day + day
    await expect.poll(async () => (await api.get('/v1/payouts')).body.data.map((payout: { amount: number; createdAt: number }) => [payout.amount, payout.createdAt])).toEqual([[1500, firstRun]])
    expect((await api.get('/v1/merchants/me')).body.balance).toBe(0)
    // The runs after it found nothing; the next one is planned after the imported clock, not from days before it.
    const advanced = (await api.post('/_sim/clock/advance', { ms: day })).body
    expect(advanced.ran.filter((action: { kind: string }) => action.kind === 'settlement.run')).toHaveLength(1)
    expect((await api.post('/_sim/state/import', (await api.get('/_sim/state')).body)).status).toBe(200)
  })

  // Found by an adversarial pass: a payment dated after the file's clock was swept by a run dated before it.
  it('refuses an object stamped after the clock the import sets, naming it', async () => {
    const day = 24 * 60 * 60 * 1000
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const session = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, key())).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    const exported = (await api.get('/_sim/state')).body
    const forged = structuredClone(exported)
    const paid = forged.collections.checkoutSessions.find((doc: { id: string }) => doc.id === session.id)
    paid.endedAt += day
    const refused = await api.post('/_sim/state/import', forged)
    expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, 'invalid_request', 'checkoutSessions[0].endedAt'])
    expect(refused.body.error.message).toContain("is after the merchant's clock as this import leaves it")
    // The same file with its clock moved a day on is what the API could have left.
    exported.collections.merchants[0].clockOffsetMs += day
    expect((await api.post('/_sim/state/import', exported)).status).toBe(200)
  })

  // Found by an adversarial pass: a rate is stamped with the merchant's clock when it is set, and a quote takes its stamp.
  it('refuses a rate, or a session quoted at a rate, dated after the clock the import sets', async () => {
    const day = 24 * 60 * 60 * 1000
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    await api.put('/_sim/rates', { USD: '2.2600' })
    await api.post('/v1/checkout-sessions', { quote: { amount: 1000, currency: 'USD' } }, key())
    const exported = (await api.get('/_sim/state')).body
    const { now } = (await api.get('/_sim/clock')).body
    const forgeries: [string, (file: typeof exported) => void][] = [
      ['merchants[0].quoteRates.USD.asOf', (file) => (file.collections.merchants[0].quoteRates.USD.asOf = now + day)],
      ['checkoutSessions[0].quote.asOf', (file) => (file.collections.checkoutSessions[0].quote.asOf = now + day)],
    ]
    for (const [param, forge] of forgeries) {
      const forged = structuredClone(exported)
      forge(forged)
      const refused = await api.post('/_sim/state/import', forged)
      expect([refused.status, refused.body.error.param, refused.body.error.message]).toEqual([400, param, expect.stringContaining("is after the merchant's clock as this import leaves it")])
    }
    expect((await api.get('/_sim/state')).body).toEqual(exported)
    expect((await api.post('/_sim/state/import', exported)).status).toBe(200)
  })

  it('refuses another merchant’s state, and anything that is not a state file', async () => {
    const a = await busyMerchant()
    const b = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const exported = (await a.api.get('/_sim/state')).body
    const refused = await b.post('/_sim/state/import', exported)
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('merchantId')
    // A fresh simulator has none of the file's merchants: the message says how to start one that has.
    expect(refused.body.error.message).toContain('`bula serve --export-on-exit FILE`')
    expect(refused.body.error.message).toContain('`bula serve --import FILE`')
    const junk = await b.post('/_sim/state/import', { hello: 'world' })
    expect(junk.status).toBe(400)
    expect(junk.body.error.code).toBe('invalid_request')
    // Nothing of a's was touched.
    expect((await a.api.get('/v1/checkout-sessions')).body.data).toHaveLength(3)
  })
})

describe('a whole simulator\'s file at start (`bula serve --import`)', () => {
  /** The simulator's whole state with one merchant's sent Invoice, as --export-on-exit writes it. */
  async function wholeFile(change: (state: StateFile) => void): Promise<string> {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const invoice = (await api.post('/v1/invoices', { customerName: 'Kai Store', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 1, unitPrice: 2500 }] }, key())).body
    await api.post(`/v1/invoices/${invoice.id}/send`, undefined, key())
    const state = structuredClone(exportState(server().ctx.store))
    change(state)
    const file = path.join(await tempFolder('bula-whole-'), 'state.json')
    await writeFile(file, JSON.stringify(state))
    return file
  }

  it('moves the invoice counter past every imported id, whatever the file says of it: a new Invoice never takes an imported one\'s id', async () => {
    const file = await wholeFile((state) => {
      state.collections.counters = []
    })
    await withTestServer({ importFile: file }, async (imported) => {
      const invoices = (JSON.parse(await readFile(file, 'utf8')) as StateFile).collections.invoices as { invoiceId: number; customerName: string }[]
      const last = invoices.reduce((highest, invoice) => (invoice.invoiceId > highest.invoiceId ? invoice : highest))
      const { keys } = await signupMerchant(imported.baseUrl)
      const created = (await client(imported.baseUrl, keys.secret).post('/v1/invoices', { customerName: 'New', dueDate: '2026-12-31', items: [{ description: 'x', quantity: 1, unitPrice: 100 }] }, key())).body
      expect(created.id).toBe(last.invoiceId + 1)
      expect(imported.ctx.store.get('invoices', String(last.invoiceId))?.customerName).toBe(last.customerName)
    })
  })

  it('refuses at start an --export-on-exit path it could never write, rather than losing the state at the end', async () => {
    const folder = await tempFolder('bula-export-')
    for (const [target, message] of [
      [path.join(folder, 'missing', 'state.json'), /Cannot export to .*missing\/state\.json on exit: the folder .*missing does not exist\.$/],
      [folder, /it is a folder/],
    ] as const) {
      await expect(startServer({ port: 0, exportOnExit: target, log: () => {} }), target).rejects.toThrow(message)
    }
    // A state file that is not there is said so in words, not as the system's ENOENT.
    const missing = path.join(folder, 'nope.json')
    await expect(startServer({ port: 0, importFile: missing, log: () => {} })).rejects.toThrow(`Cannot read the state file ${missing}: no such file.`)
  })

  it('refuses an invoice id or counter past the import ceiling (999,999,999), and an unknown field, naming the file and the value', async () => {
    const attempts: [string, (state: StateFile) => void, string][] = [
      ['an invoice id', (state) => Object.assign((state.collections.invoices as object[]).at(-1)!, { id: '999999999999999', invoiceId: 999_999_999_999_999 }), 'invoiceId'],
      ['the counter', (state) => ((state.collections.counters as { id: string; last: number }[]).find((c) => c.id === 'invoiceId')!.last = 999_999_999_999_999), 'last'],
      ['a field', (state) => Object.assign(state, { evil: 1 }), 'unknown field "evil"'],
    ]
    for (const [what, change, named] of attempts) {
      const file = await wholeFile(change)
      const started = startServer({ port: 0, importFile: file, log: () => {} })
      await expect(started, what).rejects.toThrow(StartError)
      await expect(started, what).rejects.toThrow(named)
      await expect(started, what).rejects.toThrow(file)
    }
  })
})
