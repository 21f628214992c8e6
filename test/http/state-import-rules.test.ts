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
