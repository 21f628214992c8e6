import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DAY, PNG_DATA_URL, call, client, signupMerchant, useTestServer, withTestServer } from '../helpers/http.js'
import { merchantWithLiveData, sentInvoice } from '../helpers/live-data.js'
import { MAX_IMPORTED_INVOICE_ID } from '../../server/domain/invoice.js'
import { MAX_INVOICE_ID } from '../../src/schemas/index.js'

// Issue 12, items 1 to 6: each test is the attack, made with a test secret key (docs/security.md).

const server = useTestServer()

let counter = 0
const key = () => ({ headers: { 'idempotency-key': `trust-state-${++counter}` } })

describe('the state routes act within the key\'s mode (item 4)', () => {
  it('a test key exports test objects only: no live object, live secret, live key hash or live customer e-mail', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const exported = await m.test.get('/_sim/state')
    expect(exported.status).toBe(200)
    expect(exported.body).toMatchObject({ mode: 'test', merchantId: m.merchant.id })
    const text = JSON.stringify(exported.body)
    const liveKeyHash = createHash('sha256').update(m.liveKeys.secret).digest('hex')
    for (const secret of [m.liveSession.id, m.liveIntentId, m.liveEndpoint.id, m.liveEndpoint.secret, 'live.customer@example.test', liveKeyHash, m.liveInvoice.url.split('/').at(-1)]) {
      expect(text).not.toContain(secret)
    }
    expect(text).not.toContain('"live"')
    expect(exported.body.collections.checkoutSessions).toHaveLength(3)
  })

  it('a clock advance reports only the key\'s own mode: no live session, payout, event or endpoint URL to a test key, and the reverse', async () => {
    const m = await merchantWithLiveData(server().baseUrl)
    const advanced = await m.test.post('/_sim/clock/advance', { ms: 2 * DAY })
    expect(advanced.status).toBe(200)
    const text = JSON.stringify(advanced.body)
    for (const marker of [...m.liveMarkers, m.liveEndpoint.url]) expect(text).not.toContain(marker)
    const descriptions = advanced.body.ran.map((action: { description: string }) => action.description)
    // The live pending session expired and the live Payout was sent in the same advance: only the test sessions' expiry shows.
    expect(descriptions.filter((d: string) => d.includes('expired'))).toHaveLength(3)
    expect((await m.live.get(`/v1/payouts/${m.livePayout.id}`)).body.sentAt).not.toBeNull()

    const other = await merchantWithLiveData(server().baseUrl)
    const testSessions = (await other.test.get('/v1/checkout-sessions')).body.data.map((session: { id: string }) => session.id) as string[]
    const live = await other.live.post('/_sim/clock/advance', { ms: 2 * DAY })
    expect(live.status).toBe(200)
    const liveText = JSON.stringify(live.body)
    for (const id of testSessions) expect(liveText).not.toContain(id)
    expect(liveText).toContain(other.livePayout.id)
  })

  it('a test key resets test objects only: the live balance, sessions and endpoint stay', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const liveBefore = (await m.live.get('/v1/merchants/me')).body
    expect(liveBefore.balance).toBe(5000)
    const reset = await m.test.post('/_sim/state/reset')
    expect(reset.status).toBe(200)
    expect(reset.body).toMatchObject({ mode: 'test', reset: true })
    expect((await m.test.get('/v1/checkout-sessions')).body.data).toEqual([])
    expect((await m.live.get('/v1/merchants/me')).body.balance).toBe(5000)
    expect((await m.live.get(`/v1/checkout-sessions/${m.liveSession.id}`)).status).toBe(200)
    expect((await m.live.get('/v1/webhook-endpoints')).body.data.map((e: { id: string }) => e.id)).toEqual([m.liveEndpoint.id])
  })

  it('a test key cannot import live objects, identity, verification, balances or keys', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const testFile = (await m.test.get('/_sim/state')).body
    const liveFile = (await m.live.get('/_sim/state')).body
    const liveSession = liveFile.collections.checkoutSessions[0]
    const attempts: [string, (file: any) => void, string, number?][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
      ['a live session', (f) => f.collections.checkoutSessions.push(liveSession), 'checkoutSessions[3].mode'],
      ['a live session relabelled test', (f) => f.collections.checkoutSessions.push({ ...liveSession, mode: 'test' }), 'checkoutSessions[3].id'],
      ['the whole live file', (f) => Object.assign(f, { mode: 'live' }), 'mode'],
      ['verification', (f) => (f.collections.merchants[0].verification = { status: 'pending' }), 'merchants[0].verification'],
      ['a tier', (f) => (f.collections.merchants[0].tier = 'business'), 'merchants[0].tier'],
      ['balances', (f) => (f.collections.merchants[0].balances = { test: 0, live: 10_000_000 }), 'merchants[0].balances'],
      ['keys', (f) => (f.collections.apiKeys = []), 'apiKeys'],
      ['jobs', (f) => (f.collections.jobs = []), 'jobs'],
      ['live payout fault', (f) => (f.collections.merchants[0].nextPayoutFailure = 'bounced'), 'merchants[0].nextPayoutFailure'],
      ['live providers off', (f) => (f.collections.merchants[0].settings.liveProviders = false), 'merchants[0].settings.liveProviders', 403],
      [
        'another payout destination',
        (f) => (f.collections.merchants[0].settings.payoutDestination = { type: 'wallet', provider: 'mpaisa', phone: '+6797000000' }),
        'merchants[0].settings.payoutDestination',
        403,
      ],
    ]
    for (const [what, change, param, status = 400] of attempts) {
      const file = structuredClone(testFile)
      change(file)
      const refused = await m.test.post('/_sim/state/import', file)
      expect([what, refused.status, refused.body.error?.param]).toEqual([what, status, param])
      if (status === 403) expect(refused.body.error.code).toBe('live_key_required')
    }
    // Nothing changed: the live side as it was, and the test file imports as it is.
    expect((await m.live.get('/v1/merchants/me')).body.balance).toBe(5000)
    expect((await m.test.post('/_sim/state/import', testFile)).status).toBe(200)
    expect((await m.live.get(`/v1/checkout-sessions/${m.liveSession.id}`)).body.status).toBe('succeeded')
  })

  it('a live key round-trips live data without touching test data', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const liveFile = (await m.live.get('/_sim/state')).body
    expect(JSON.stringify(liveFile)).toContain('live.customer@example.test')
    expect((await m.live.post('/_sim/state/reset')).status).toBe(200)
    expect((await m.live.get('/v1/merchants/me')).body.balance).toBe(0)
    expect((await m.test.get('/v1/checkout-sessions')).body.data).toHaveLength(3)
    const imported = await m.live.post('/_sim/state/import', liveFile)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect((await m.live.get('/v1/merchants/me')).body.balance).toBe(5000)
    expect((await m.live.get(`/v1/checkout-sessions/${m.liveSession.id}`)).body.status).toBe('succeeded')
  })
})

describe('an import is untrusted input (items 1, 2, 3, 6)', () => {
  it('item 1: cannot take over another merchant\'s hosted invoice page', async () => {
    const victim = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const victimInvoice = await sentInvoice(victim)
    const victimToken = victimInvoice.url.split('/').at(-1)!
    const attacker = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    await sentInvoice(attacker)
    const file = (await attacker.get('/_sim/state')).body
    file.collections.invoices[0].pageToken = victimToken
    const refused = await attacker.post('/_sim/state/import', file)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'invoices[0].pageToken' })
    const page = await call(server().baseUrl, 'GET', `/i/${victimToken}`)
    expect(page.body).toContain(victimInvoice.number)
    expect((await victim.get(`/v1/invoices/${victimInvoice.id}`)).body.status).toBe('sent')
  })

  it('item 2: imported deliveries, sessions and payments cannot name another merchant\'s objects', async () => {
    const victimKeys = (await signupMerchant(server().baseUrl)).keys
    const victim = client(server().baseUrl, victimKeys.secret)
    const victimSession = (await victim.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, key())).body
    await victim.post(`/_sim/checkout-sessions/${victimSession.id}/pay`, { outcome: 'succeeded' })
    const victimFile = (await victim.get('/_sim/state')).body
    const victimEvent = victimFile.collections.events[0]
    const attackerSignup = await signupMerchant(server().baseUrl)
    const attacker = client(server().baseUrl, attackerSignup.keys.secret)
    const own = (await attacker.get('/_sim/state')).body
    const as = (doc: object) => ({ ...doc, merchantId: attackerSignup.merchant.id })
    const attempts: [string, (file: any) => void, string][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
      ['their session as it is', (f) => f.collections.checkoutSessions.push(victimFile.collections.checkoutSessions[0]), 'checkoutSessions[0].merchantId'],
      ['their session as ours', (f) => f.collections.checkoutSessions.push(as(victimFile.collections.checkoutSessions[0])), 'checkoutSessions[0].id'],
      [
        'a delivery of their event',
        (f) =>
          f.collections.deliveries.push({
            id: 'dlv_forged0000000000001',
            merchantId: attackerSignup.merchant.id,
            mode: 'test',
            eventId: victimEvent.id,
            endpointId: 'we_nothing000000000001',
            url: 'http://127.0.0.1:9/x',
            status: 'pending',
            attempts: [],
            nextAttemptAt: 0,
            createdAt: 0,
            failFirstAttempt: false,
          }),
        'deliveries[0].eventId',
      ],
      ['a payment of their session', (f) => f.collections.paymentIntents.push(as(victimFile.collections.paymentIntents[0])), 'paymentIntents[0].id'],
    ]
    for (const [what, change, param] of attempts) {
      const file = structuredClone(own)
      change(file)
      const refused = await attacker.post('/_sim/state/import', file)
      expect([what, refused.status, refused.body.error?.param]).toEqual([what, 400, param])
    }
    expect((await victim.get(`/_sim/events/${victimEvent.id}`)).body.deliveries).toEqual([])
  })

  it('item 2, in depth: a job that names another merchant\'s object does nothing when it runs', async () => {
    const victimSignup = await signupMerchant(server().baseUrl)
    const victim = client(server().baseUrl, victimSignup.keys.secret)
    const pending = (await victim.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, key())).body
    const attacker = await signupMerchant(server().baseUrl)
    // What an old data file or a bug could hold: jobs of the attacker acting on the victim's objects.
    for (const kind of ['checkout_session.expire', 'checkout_session.purge_email']) {
      server().ctx.store.put('jobs', { id: `job_forged${kind.length}${counter++}`, merchantId: attacker.merchant.id, dueAt: 0, kind, payload: { sessionId: pending.id } })
    }
    // And a job of the victim's own that claims the other mode.
    server().ctx.store.put('jobs', { id: `job_forgedmode${counter++}`, merchantId: victimSignup.merchant.id, dueAt: 0, kind: 'checkout_session.expire', payload: { sessionId: pending.id, mode: 'live' } })
    server().ctx.clock.reload()
    for (const keys of [attacker.keys, victimSignup.keys]) {
      expect((await client(server().baseUrl, keys.secret).post('/_sim/clock/advance', { ms: 1000 })).status).toBe(200)
    }
    expect((await victim.get(`/v1/checkout-sessions/${pending.id}`)).body.status).toBe('pending')
    expect((await victim.get('/_sim/events')).body.data).toEqual([])
  })

  it('item 3: a clock offset out of range is refused, and the simulator keeps answering', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const file = (await api.get('/_sim/state')).body
    for (const offset of [1e300, 'x', -401 * DAY, 1.5, 401 * DAY]) {
      const forged = structuredClone(file)
      forged.collections.merchants[0].clockOffsetMs = offset
      const refused = await api.post('/_sim/state/import', forged)
      expect([offset, refused.status, refused.body.error?.param]).toEqual([offset, 400, 'merchants[0].clockOffsetMs'])
    }
    const started = performance.now()
    expect((await call(server().baseUrl, 'GET', '/_sim/health')).status).toBe(200)
    expect(performance.now() - started).toBeLessThan(1000)
    expect((await api.get('/_sim/clock')).body.offsetMs).toBe(0)
    const moved = structuredClone(file)
    moved.collections.merchants[0].clockOffsetMs = 30 * DAY
    expect((await api.post('/_sim/state/import', moved)).status).toBe(200)
    expect((await api.get('/_sim/clock')).body.offsetMs).toBe(30 * DAY)
  })
})

describe('an import cannot break other merchants or the API\'s limits', () => {
  it('refuses an invoice id past the import ceiling, so the shared counter keeps ids the API serves for everyone else', async () => {
    const api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    await sentInvoice(api)
    const file = (await api.get('/_sim/state')).body
    for (const id of [MAX_IMPORTED_INVOICE_ID + 1, MAX_INVOICE_ID, 999_999_999_999_999]) {
      const forged = structuredClone(file)
      Object.assign(forged.collections.invoices[0], { id: String(id), invoiceId: id })
      const refused = await api.post('/_sim/state/import', forged)
      expect([id, refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([id, 400, 'invalid_request', 'invoices[0].invoiceId'])
    }
    const other = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const next = await sentInvoice(other)
    expect(next.id).toBeLessThan(MAX_IMPORTED_INVOICE_ID)
    expect((await other.get(`/v1/invoices/${next.id}`)).status).toBe(200)
  })

  // A file at the ceiling moves the counter that far, and no further: another merchant's next Invoice is still one
  // the API serves (an id at the API's own limit used to pass, leaving everyone's next Invoice at a 13-digit id: 404).
  it('takes an invoice id at the import ceiling, and the next Invoice of another merchant is one the API serves', async () => {
    await withTestServer({}, async (own) => {
      const api = client(own.baseUrl, (await signupMerchant(own.baseUrl)).keys.secret)
      await sentInvoice(api)
      const file = (await api.get('/_sim/state')).body
      Object.assign(file.collections.invoices[0], { id: String(MAX_IMPORTED_INVOICE_ID), invoiceId: MAX_IMPORTED_INVOICE_ID })
      expect((await api.post('/_sim/state/import', file)).status).toBe(200)
      expect((await api.get(`/v1/invoices/${MAX_IMPORTED_INVOICE_ID}`)).status).toBe(200)
      const other = client(own.baseUrl, (await signupMerchant(own.baseUrl)).keys.secret)
      const next = await sentInvoice(other)
      expect(next.id).toBe(MAX_IMPORTED_INVOICE_ID + 1)
      expect((await other.get(`/v1/invoices/${next.id}`)).body).toMatchObject({ id: next.id, status: 'sent' })
    })
  })

  it('refuses a sent invoice over the FJ$5,000 cap; a draft over it, as a dashboard edit leaves one, round-trips', async () => {
    const api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    await sentInvoice(api)
    const forged = (await api.get('/_sim/state')).body
    forged.collections.invoices[0].items = [{ description: 'Mats', quantity: 9999, unitPrice: 499_999 }]
    const refused = await api.post('/_sim/state/import', forged)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'invoices[0].items', message: expect.stringContaining('under FJ$5,000.00') })

    const draft = (await api.post('/v1/invoices', { customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 1, unitPrice: 100 }] }, key())).body
    expect((await api.patch(`/_sim/invoices/${draft.id}`, { items: [{ description: 'Mats', quantity: 2, unitPrice: 499_999 }] })).status).toBe(200)
    const own = (await api.get('/_sim/state')).body
    expect((await api.post('/_sim/state/import', own)).status).toBe(200)
  })

  it('refuses an endpoint URL with a user name or password, as registration does', async () => {
    const api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    await api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })
    const file = (await api.get('/_sim/state')).body
    file.collections.webhookEndpoints[0].url = 'http://user:pw@127.0.0.1:9/hooks'
    const refused = await api.post('/_sim/state/import', file)
    expect([refused.status, refused.body.error?.param]).toEqual([400, 'webhookEndpoints[0].url'])
  })

  it('says which side of a payment\'s link to its session is missing', async () => {
    const api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const session = (await api.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, key())).body
    await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    const file = (await api.get('/_sim/state')).body
    const intent = file.collections.paymentIntents[0].id
    file.collections.checkoutSessions[0].paymentIntentIds = []
    const refused = await api.post('/_sim/state/import', file)
    expect(refused.body.error).toMatchObject({ param: 'paymentIntents[0].checkoutSessionId', message: `paymentIntents[0].checkoutSessionId names ${session.id}, whose paymentIntentIds do not list ${intent}.` })
  })

  it('names a collection called like a property of every object as unknown', async () => {
    const api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const file = (await api.get('/_sim/state')).body
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const refused = await api.post('/_sim/state/import', { ...file, collections: { ...file.collections, [name]: [] } })
      expect(refused.body.error).toEqual({ code: 'invalid_request', message: `Unknown collection \`${name}\`.`, param: name })
    }
  })
})

describe('a refused import changes nothing (item 6)', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bula-trust-state-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('a 200,000-deep value is refused with 400, and the merchant\'s sessions survive the next write and a restart', async () => {
    const dataFile = path.join(dir, 'data.json')
    const keys = await withTestServer({ dataFile }, async (first) => {
      const { keys } = await signupMerchant(first.baseUrl)
      const api = client(first.baseUrl, keys.secret)
      for (let i = 0; i < 3; i++) await api.post('/v1/checkout-sessions', { amount: 100 + i, currency: 'FJD' }, key())
      const file = (await api.get('/_sim/state')).body
      const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`
      const text = JSON.stringify(file).replace('"events":[]', `"events":[{"id":"evt_deep0000000000000001","object":{"a":${deep}}}]`)
      const refused = await call(first.baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody: text })
      expect(refused.status).toBe(400)
      expect(refused.body.error.code).toBe('invalid_request')
      // An unrelated write afterwards, then a restart from the file.
      await api.post('/v1/checkout-sessions', { amount: 999, currency: 'FJD' }, key())
      return keys
    })
    await withTestServer({ dataFile }, async (second) => {
      expect((await client(second.baseUrl, keys.secret).get('/v1/checkout-sessions')).body.data).toHaveLength(4)
    })
  })
})

describe('live money needs a live key once there is one (item 5)', () => {
  it('refuses a test key the payout destination, schedule, live providers, live payout faults and verification', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const destination = { type: 'wallet', provider: 'mpaisa', phone: '+6797000000' }
    for (const [patch, param] of [
      [{ payoutDestination: destination }, 'payoutDestination'],
      [{ payoutSchedule: 'daily' }, 'payoutSchedule'],
      [{ liveProviders: false }, 'liveProviders'],
    ] as const) {
      const refused = await m.test.patch('/_sim/settings', patch)
      expect([param, refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([param, 403, 'live_key_required', param])
    }
    expect((await m.test.post('/_sim/payouts/fail-next', { reason: 'bounced' })).body.error.code).toBe('live_key_required')
    const settings = (await m.live.get('/_sim/settings')).body
    expect(settings).toMatchObject({ payoutDestination: null, payoutSchedule: 'manual', liveProviders: true })
    // The live key may; the test key still changes what is not live money.
    expect((await m.live.patch('/_sim/settings', { payoutDestination: destination })).status).toBe(200)
    expect((await m.live.post('/_sim/payouts/fail-next', { reason: 'bounced' })).status).toBe(200)
    expect((await m.test.patch('/_sim/settings', { displayName: 'Still mine' })).status).toBe(200)
  })

  it('refuses a test key submitting or rejecting verification with 403 live_key_required, before the verification\'s state is looked at', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const submission = { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL }
    for (const [path, body] of [
      ['/_sim/verification', submission],
      ['/_sim/verification/reject', { reason: 'Blurry photo' }],
    ] as const) {
      const refused = await m.test.post(path, body)
      expect([path, refused.status, refused.body.error?.code]).toEqual([path, 403, 'live_key_required'])
      // The live key gets past the key and meets the state: the verification is approved.
      const live = await m.live.post(path, body)
      expect([path, live.status, live.body.error?.code]).toEqual([path, 409, 'invalid_state'])
    }
    expect((await m.live.get('/_sim/verification')).body.verification.status).toBe('approved')
  })

  // Found by an adversarial pass: an empty or junk body got 400 naming what it lacked, where a valid one got 403.
  it('refuses a test key with 403 live_key_required before its body is read, whatever the body', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    for (const path of ['/_sim/verification', '/_sim/verification/reject', '/_sim/payouts/fail-next']) {
      for (const body of [{}, { junk: true }]) {
        const refused = await m.test.post(path, body)
        expect([path, refused.status, refused.body.error?.code]).toEqual([path, 403, 'live_key_required'])
      }
    }
  })

  it('approving an approved verification is 409 invalid_state with either key, and mints no key', async () => {
    const m = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
    const keysBefore = (await m.live.get('/v1/api-keys')).body
    for (const api of [m.test, m.live]) {
      const again = await api.post('/_sim/verification/approve')
      expect(again.status).toBe(409)
      expect(again.body.error.code).toBe('invalid_state')
      expect(again.body.keys).toBeUndefined()
    }
    expect((await m.live.get('/v1/api-keys')).body).toEqual(keysBefore)
  })
})
