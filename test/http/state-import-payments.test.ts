import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_TIMESTAMP } from '../../server/domain/records.js'
import { busyMerchant, intentAt, liveMerchantWithPayouts, sessionAt, snapshot, type Doc, type StateFile } from '../helpers/busy-merchant.js'
import { DAY, useTestServer } from '../helpers/http.js'
import { merchantWithLiveData } from '../helpers/live-data.js'

// A merchant's state file is untrusted input (docs/security.md, "State files"): the balance an import sets is
// what the file's succeeded payments earned, so the file's payments must be ones the API itself could have made.

const server = useTestServer()

let busy: Awaited<ReturnType<typeof busyMerchant>>
let exported: StateFile
beforeAll(async () => {
  busy = await busyMerchant(server().baseUrl)
  exported = (await busy.api.get('/_sim/state')).body
})

describe('state import: a file exported after any sequence of API calls imports back unchanged', () => {
  it('imports the busy merchant\'s own export, and every object and the balance read as before', async () => {
    const statuses = exported.collections.checkoutSessions!.map((session) => session.status).sort()
    expect(statuses).toEqual(['cancelled', 'cancelled', 'failed', 'failed', 'failed', 'pending', 'pending', 'pending', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded'])
    const before = await snapshot(busy.api)
    expect(before.invoices.data.map((invoice: { status: string }) => invoice.status)).toEqual(['void', 'paid'])
    const imported = await busy.api.post('/_sim/state/import', exported)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect(await snapshot(busy.api)).toEqual(before)
  })

  it('imports a live merchant\'s own export, with a paid, a failed and a pending Payout and customers\' e-mails', async () => {
    const { live } = await liveMerchantWithPayouts(server().baseUrl)
    const file = (await live.get('/_sim/state')).body as StateFile
    expect(file.collections.payouts!.map((payout) => payout.status)).toEqual(['paid', 'failed', 'pending'])
    expect(file.collections.checkoutSessions!.filter((session) => session.customerEmail !== null)).toHaveLength(3)
    const before = await snapshot(live)
    const imported = await live.post('/_sim/state/import', file)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect(await snapshot(live)).toEqual(before)
  })

  // An Invoice's session is opened with the simulator's own invoice page as its redirects, plain http in live mode
  // too, which the import judged as a merchant's URL: anyone who had taken a live Invoice payment could not import
  // their own export (400, "successUrl must be HTTPS").
  it('imports a live merchant\'s own export with a paid live Invoice', async () => {
    const { live, liveInvoice } = await merchantWithLiveData(server().baseUrl)
    expect((await live.post(`/_sim/invoices/${liveInvoice.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)
    const file = (await live.get('/_sim/state')).body as StateFile
    const session = file.collections.checkoutSessions!.find((doc) => doc.invoiceId === String(liveInvoice.id))!
    expect([session.mode, session.successUrl, session.cancelUrl]).toEqual(['live', liveInvoice.url, liveInvoice.url])
    expect(liveInvoice.url).toMatch(/^http:\/\//)
    const before = await snapshot(live)
    const imported = await live.post('/_sim/state/import', file)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect(await snapshot(live)).toEqual(before)
  })
})

describe('state import: the file\'s payments hold the rules of the API\'s own state machine', () => {
  /** Each forgery of the export, the `param` it must be refused with, and the balance left as it was. */
  const forgeries: [string, (file: StateFile) => string][] = [
    ['an unpaid session made succeeded, for the most a session may ask', (file) => {
      const i = sessionAt(file, busy.ids.unpaid.id)
      Object.assign(file.collections.checkoutSessions![i]!, { status: 'succeeded', endedAt: file.collections.checkoutSessions![i]!.createdAt, amount: 499_999 })
      return `checkoutSessions[${i}].status`
    }],
    ['a cancelled session made succeeded', (file) => {
      const i = sessionAt(file, busy.ids.cancelled.id)
      file.collections.checkoutSessions![i]!.status = 'succeeded'
      return `checkoutSessions[${i}].status`
    }],
    ['a failed session made succeeded', (file) => {
      const i = sessionAt(file, busy.ids.failed.id)
      file.collections.checkoutSessions![i]!.status = 'succeeded'
      return `checkoutSessions[${i}].status`
    }],
    ['a processing session made succeeded, its payment still processing', (file) => {
      const i = sessionAt(file, busy.ids.processing.id)
      Object.assign(file.collections.checkoutSessions![i]!, { status: 'succeeded', endedAt: file.collections.checkoutSessions![i]!.createdAt })
      return `checkoutSessions[${i}].status`
    }],
    ['a failed payment made succeeded under its failed session', (file) => {
      file.collections.paymentIntents![intentAt(file, busy.ids.failed.id)]!.status = 'succeeded'
      return `checkoutSessions[${sessionAt(file, busy.ids.failed.id)}].status`
    }],
    ['a payment of 499999 cents on a 700-cent session', (file) => {
      const j = intentAt(file, busy.ids.retried.id)
      file.collections.paymentIntents![j]!.amount = 499_999
      return `paymentIntents[${j}].amount`
    }],
    ['a succeeded session and its payment made dearer than its quote converts to', (file) => {
      const i = sessionAt(file, busy.ids.quoted.id)
      file.collections.checkoutSessions![i]!.amount = 499_999
      file.collections.paymentIntents![intentAt(file, busy.ids.quoted.id)]!.amount = 499_999
      return `checkoutSessions[${i}].amount`
    }],
    ['an Invoice\'s paid session and its payment made dearer than the Invoice', (file) => {
      const i = file.collections.checkoutSessions!.findIndex((session) => session.invoiceId === String(busy.ids.invoice.id) && session.status === 'succeeded')
      const session = file.collections.checkoutSessions![i]!
      session.amount = 499_999
      file.collections.paymentIntents![intentAt(file, session.id)]!.amount = 499_999
      return `checkoutSessions[${i}].amount`
    }],
    ['a second succeeded payment on a succeeded session', (file) => {
      const i = sessionAt(file, busy.ids.paid.id)
      const intent = file.collections.paymentIntents![intentAt(file, busy.ids.paid.id)]!
      file.collections.paymentIntents!.push({ ...intent, id: 'pi_forgedsecond00000001' })
      file.collections.checkoutSessions![i]!.paymentIntentIds.push('pi_forgedsecond00000001')
      return `checkoutSessions[${i}].paymentIntentIds[1]`
    }],
    ['a succeeded session without its end time', (file) => {
      const i = sessionAt(file, busy.ids.paid.id)
      file.collections.checkoutSessions![i]!.endedAt = null
      return `checkoutSessions[${i}].endedAt`
    }],
    ['a pending session with an end time', (file) => {
      const i = sessionAt(file, busy.ids.unpaid.id)
      file.collections.checkoutSessions![i]!.endedAt = file.collections.checkoutSessions![i]!.createdAt
      return `checkoutSessions[${i}].endedAt`
    }],
    ['an Invoice\'s session its Invoice does not list', (file) => {
      const invoice = file.collections.invoices!.find((doc) => doc.invoiceId === busy.ids.invoice.id)!
      const sessionId = invoice.checkoutSessionIds.pop()
      return `checkoutSessions[${sessionAt(file, sessionId)}].invoiceId`
    }],
    ['an Invoice\'s session leading somewhere other than its invoice page', (file) => {
      const invoice = file.collections.invoices!.find((doc) => doc.invoiceId === busy.ids.invoice.id)!
      const i = sessionAt(file, invoice.checkoutSessionIds.at(-1))
      const session = file.collections.checkoutSessions![i]!
      session.cancelUrl = (session.cancelUrl as string).replace(/\/i\/.*/, '/i/someone-elses-page')
      return `checkoutSessions[${i}].cancelUrl`
    }],
    ['a void Invoice made paid, with no session that paid it', (file) => {
      const k = file.collections.invoices!.findIndex((doc) => doc.status === 'void')
      file.collections.invoices![k]!.status = 'paid'
      return `invoices[${k}].status`
    }],
    ['a paid Invoice made sent again, to be paid twice', (file) => {
      const k = file.collections.invoices!.findIndex((doc) => doc.status === 'paid')
      file.collections.invoices![k]!.status = 'sent'
      return `invoices[${k}].status`
    }],
  ]

  it.each(forgeries)('refuses %s', async (_what, forge) => {
    const file = structuredClone(exported)
    const param = forge(file)
    const balance = (await busy.api.get('/v1/merchants/me')).body.balance
    const refused = await busy.api.post('/_sim/state/import', file)
    expect([refused.status, refused.body.error?.code, refused.body.error?.param], JSON.stringify(refused.body)).toEqual([400, 'invalid_request', param])
    expect((await busy.api.get('/v1/merchants/me')).body.balance).toBe(balance)
  })
})

describe('state import: a session expires when the API would have let it', () => {
  const expiries: [string, (session: Doc) => number][] = [
    ['never (the end of year 9999)', () => MAX_TIMESTAMP],
    ['before it was created', (session) => session.createdAt - 1],
    ['as it is created', (session) => session.createdAt],
    ['a minute short of 30 minutes after creation', (session) => session.createdAt + 29 * 60 * 1000],
    ['a millisecond past 24 hours after creation', (session) => session.createdAt + DAY + 1],
  ]

  it.each(expiries)('refuses a pending session that expires %s', async (_when, expiresAt) => {
    const file = structuredClone(exported)
    const i = sessionAt(file, busy.ids.unpaid.id)
    const session = file.collections.checkoutSessions![i]!
    session.expiresAt = expiresAt(session)
    const refused = await busy.api.post('/_sim/state/import', file)
    expect([refused.status, refused.body.error?.param], JSON.stringify(refused.body)).toEqual([400, `checkoutSessions[${i}].expiresAt`])
    expect((await busy.api.get(`/v1/checkout-sessions/${busy.ids.unpaid.id}`)).body.expiresAt).toBe(busy.ids.unpaid.expiresAt)
  })

  it('takes the two ends the API allows, 30 minutes and 24 hours after creation', async () => {
    const file = structuredClone(exported)
    const soon = file.collections.checkoutSessions![sessionAt(file, busy.ids.soon.id)]!
    soon.expiresAt = soon.createdAt + 30 * 60 * 1000
    const unpaid = file.collections.checkoutSessions![sessionAt(file, busy.ids.unpaid.id)]!
    expect(unpaid.expiresAt - unpaid.createdAt).toBe(DAY)
    const imported = await busy.api.post('/_sim/state/import', file)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect((await busy.api.post('/_sim/state/import', exported)).status).toBe(200)
  })
})

describe('state import: a Payout sweeps no more than was earned', () => {
  it('refuses a failed live Payout of more than the file\'s payments earned, though a failed one leaves the balance alone', async () => {
    const m = await merchantWithLiveData(server().baseUrl)
    const file = (await m.live.get('/_sim/state')).body as StateFile
    Object.assign(file.collections.payouts![0]!, { status: 'failed', failureReason: 'Bounced', amount: 10 ** 12 })
    const refused = await m.live.post('/_sim/state/import', file)
    expect([refused.status, refused.body.error?.param], JSON.stringify(refused.body)).toEqual([400, 'payouts[0].amount'])
    expect((await m.live.get(`/v1/payouts/${m.livePayout.id}`)).body).toMatchObject({ status: 'pending', amount: 5000 })
  })
})
