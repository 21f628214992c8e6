import { beforeAll, describe, expect, it } from 'vitest'
import { busyMerchant, intentAt, sessionAt, snapshot, type StateFile } from '../helpers/busy-merchant.js'
import { client, useTestServer } from '../helpers/http.js'
import { merchantWithLiveData } from '../helpers/live-data.js'

// A state file is untrusted input (docs/security.md, "State files"): beyond its payments adding up, each
// document must be in a state the API itself leaves objects in, with its times in the order the API
// stamps them. Each case forges one value of a merchant's own export, made through the API.

const server = useTestServer()

type Forgery = [string, (file: StateFile) => string]
type Merchant = { api: ReturnType<typeof client>; exported: StateFile }

let busy: Awaited<ReturnType<typeof busyMerchant>>
let busyFile: StateFile
let live: Awaited<ReturnType<typeof merchantWithLiveData>>
let liveFile: StateFile
beforeAll(async () => {
  busy = await busyMerchant(server().baseUrl)
  busyFile = (await busy.api.get('/_sim/state')).body
  live = await merchantWithLiveData(server().baseUrl, { requestPayout: false })
  liveFile = (await live.live.get('/_sim/state')).body
})

/** Imports each forgery of the merchant's export: 400 naming `param`, and what the API shows unchanged. */
function refusesEach(forgeries: Forgery[], merchant: () => Merchant) {
  it.each(forgeries)('refuses %s', async (_what, forge) => {
    const { api, exported } = merchant()
    const file = structuredClone(exported)
    const param = forge(file)
    const before = await snapshot(api)
    const refused = await api.post('/_sim/state/import', file)
    expect([refused.status, refused.body.error?.code, refused.body.error?.param], JSON.stringify(refused.body)).toEqual([400, 'invalid_request', param])
    expect(await snapshot(api)).toEqual(before)
  })
}

const busyMerchantFile = (): Merchant => ({ api: busy.api, exported: busyFile })
const session = (file: StateFile, id: string) => file.collections.checkoutSessions![sessionAt(file, id)]!
const intent = (file: StateFile, sessionId: string) => file.collections.paymentIntents![intentAt(file, sessionId)]!
const invoiceAt = (file: StateFile, status: string) => file.collections.invoices!.findIndex((invoice) => invoice.status === status)

describe('state import: a test session keeps no customer e-mail', () => {
  refusesEach([
    ['a test session with a customer\'s e-mail, which test mode validates and drops', (file) => {
      session(file, busy.ids.paid.id).customerEmail = 'customer@example.test'
      return `checkoutSessions[${sessionAt(file, busy.ids.paid.id)}].customerEmail`
    }],
    ['a test Invoice\'s session with its customer\'s e-mail', (file) => {
      const i = file.collections.checkoutSessions!.findIndex((doc) => doc.invoiceId === String(busy.ids.invoice.id))
      file.collections.checkoutSessions![i]!.customerEmail = 'nadi.hotel@example.test'
      return `checkoutSessions[${i}].customerEmail`
    }],
  ], busyMerchantFile)
})

describe('state import: a payment has a failure reason exactly when it failed', () => {
  refusesEach([
    ['a succeeded payment with a failure reason', (file) => {
      intent(file, busy.ids.paid.id).failureReason = 'Declined by the Provider (test outcome).'
      return `paymentIntents[${intentAt(file, busy.ids.paid.id)}].failureReason`
    }],
    ['a processing payment with a failure reason', (file) => {
      intent(file, busy.ids.processing.id).failureReason = 'Declined by the Provider (test outcome).'
      return `paymentIntents[${intentAt(file, busy.ids.processing.id)}].failureReason`
    }],
    ['a failed payment without its reason', (file) => {
      intent(file, busy.ids.failed.id).failureReason = null
      return `paymentIntents[${intentAt(file, busy.ids.failed.id)}].failureReason`
    }],
  ], busyMerchantFile)
})

describe('state import: a live payment succeeds', () => {
  refusesEach([
    ['a live session and its payment made failed, which nothing can do to a live payment', (file) => {
      Object.assign(session(file, live.liveSession.id), { status: 'failed' })
      Object.assign(intent(file, live.liveSession.id), { status: 'failed', failureReason: 'Declined by the Provider.' })
      return `paymentIntents[${intentAt(file, live.liveSession.id)}].status`
    }],
    ['a pending live session with a processing payment', (file) => {
      const pending = (file.collections.checkoutSessions!.find((doc) => doc.status === 'pending'))!
      const paid = intent(file, live.liveSession.id)
      file.collections.paymentIntents!.push({ ...paid, id: 'pi_forgedprocessing0001', checkoutSessionId: pending.id, amount: pending.amount, status: 'processing', createdAt: pending.createdAt, updatedAt: pending.createdAt })
      pending.paymentIntentIds = ['pi_forgedprocessing0001']
      return `paymentIntents[${file.collections.paymentIntents!.length - 1}].status`
    }],
  ], () => ({ api: live.live, exported: liveFile }))
})

describe('state import: times in the order the API stamps them', () => {
  refusesEach([
    ['a session that ended before it was created', (file) => {
      const cancelled = session(file, busy.ids.cancelled.id)
      cancelled.endedAt = cancelled.createdAt - 1
      return `checkoutSessions[${sessionAt(file, busy.ids.cancelled.id)}].endedAt`
    }],
    ['an Invoice\'s session opened before the Invoice was sent', (file) => {
      const sentAt = file.collections.invoices![invoiceAt(file, 'paid')]!.sentAt
      const i = file.collections.checkoutSessions!.findIndex((doc) => doc.invoiceId === String(busy.ids.invoice.id))
      const opened = file.collections.checkoutSessions![i]!
      // Its expiry moves with it, so that only the opening time is out of order.
      const early = opened.createdAt - sentAt + 1
      Object.assign(opened, { createdAt: opened.createdAt - early, expiresAt: opened.expiresAt - early })
      return `checkoutSessions[${i}].createdAt`
    }],
    ['a payment made before its session was created', (file) => {
      intent(file, busy.ids.paid.id).createdAt = session(file, busy.ids.paid.id).createdAt - 1
      return `paymentIntents[${intentAt(file, busy.ids.paid.id)}].createdAt`
    }],
    ['a payment started as its session expired', (file) => {
      const { expiresAt } = session(file, busy.ids.processing.id)
      Object.assign(intent(file, busy.ids.processing.id), { createdAt: expiresAt, updatedAt: expiresAt })
      return `paymentIntents[${intentAt(file, busy.ids.processing.id)}].createdAt`
    }],
    ['a payment that ended before it started', (file) => {
      const paid = intent(file, busy.ids.paid.id)
      paid.updatedAt = paid.createdAt - 1
      return `paymentIntents[${intentAt(file, busy.ids.paid.id)}].updatedAt`
    }],
    ['a payment that ended after the session it ended', (file) => {
      intent(file, busy.ids.late.id).updatedAt = session(file, busy.ids.late.id).endedAt + 1
      return `paymentIntents[${intentAt(file, busy.ids.late.id)}].updatedAt`
    }],
    ['an Invoice sent before it was created', (file) => {
      const k = invoiceAt(file, 'void')
      const invoice = file.collections.invoices![k]!
      invoice.sentAt = invoice.createdAt - 1
      return `invoices[${k}].sentAt`
    }],
    ['an Invoice paid before it was created', (file) => {
      const k = invoiceAt(file, 'paid')
      const invoice = file.collections.invoices![k]!
      invoice.paidAt = invoice.createdAt - 1
      return `invoices[${k}].paidAt`
    }],
    ['an Invoice voided before it was sent', (file) => {
      const k = invoiceAt(file, 'void')
      const invoice = file.collections.invoices![k]!
      invoice.voidedAt = invoice.sentAt - 1
      return `invoices[${k}].voidedAt`
    }],
    ['a paid Invoice without the time it was paid', (file) => {
      const k = invoiceAt(file, 'paid')
      file.collections.invoices![k]!.paidAt = null
      return `invoices[${k}].paidAt`
    }],
    ['a void Invoice with a time it was paid', (file) => {
      const k = invoiceAt(file, 'void')
      file.collections.invoices![k]!.paidAt = file.collections.invoices![k]!.voidedAt
      return `invoices[${k}].paidAt`
    }],
    ['a Payout made before any payment it pays out', (file) => {
      const first = Math.min(...file.collections.checkoutSessions!.map((doc) => doc.createdAt))
      file.collections.payouts![0]!.createdAt = first - 1
      return 'payouts[0].createdAt'
    }],
    ['a Payout made after the first payment but before the others it pays out', (file) => {
      file.collections.payouts![0]!.createdAt = session(file, busy.ids.paid.id).endedAt
      return 'payouts[0].createdAt'
    }],
    ['a Payout sent before it was made', (file) => {
      const payout = file.collections.payouts![0]!
      payout.sentAt = payout.createdAt - 1
      return 'payouts[0].sentAt'
    }],
    ['a Payout paid before it was sent', (file) => {
      const payout = file.collections.payouts![0]!
      payout.paidAt = payout.sentAt - 1
      return 'payouts[0].paidAt'
    }],
    ['a paid Payout with a failure reason', (file) => {
      file.collections.payouts![0]!.failureReason = 'The bank refused the transfer.'
      return 'payouts[0].failureReason'
    }],
  ], busyMerchantFile)

  it('takes the times the API leaves: a session, its payment and its end in one millisecond, a Payout in the millisecond of the last payment it pays out', async () => {
    const file = structuredClone(busyFile)
    const paid = session(file, busy.ids.paid.id)
    Object.assign(intent(file, busy.ids.paid.id), { createdAt: paid.createdAt, updatedAt: paid.createdAt })
    paid.endedAt = paid.createdAt
    const lastPaidOut = Math.max(...file.collections.checkoutSessions!.filter((doc) => doc.status === 'succeeded' && doc.endedAt <= file.collections.payouts![0]!.createdAt).map((doc) => doc.endedAt))
    Object.assign(file.collections.payouts![0]!, { createdAt: lastPaidOut, sentAt: lastPaidOut, paidAt: lastPaidOut })
    const imported = await busy.api.post('/_sim/state/import', file)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect((await busy.api.post('/_sim/state/import', busyFile)).status).toBe(200)
  })
})
