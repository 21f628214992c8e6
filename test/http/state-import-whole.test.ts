import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { StartError, startServer } from '../../server/start.js'
import { exportState } from '../../server/state.js'
import { busyMerchant, intentAt, liveMerchantWithPayouts, sessionAt, type Doc, type StateFile } from '../helpers/busy-merchant.js'
import { client, signupMerchant, useTestServer, withTestServer } from '../helpers/http.js'
import { tempFolder } from '../helpers/temp.js'

// A whole simulator's state file (`bula serve --import`) is untrusted input as a merchant's is (docs/security.md,
// "State files"): each merchant's objects of each mode are held to the rules of `POST /_sim/state/import`.

const server = useTestServer()

let busy: Awaited<ReturnType<typeof busyMerchant>>
let whole: StateFile
beforeAll(async () => {
  // The live merchant first: the busy merchant's documents then sit after another merchant's in each list,
  // so a refusal's index is the file's, not the merchant's own.
  await liveMerchantWithPayouts(server().baseUrl)
  busy = await busyMerchant(server().baseUrl)
  whole = structuredClone(exportState(server().ctx.store)) as unknown as StateFile
})

async function fileOf(state: StateFile): Promise<string> {
  const file = path.join(await tempFolder('bula-whole-'), 'state.json')
  await writeFile(file, JSON.stringify(state))
  return file
}

const merchantAt = (state: StateFile, id: string) => state.collections.merchants!.findIndex((merchant) => merchant.id === id)

describe('`bula serve --import` of a whole simulator', () => {
  it('imports an export of a simulator with a busy test merchant and a live one with Payouts, unchanged', async () => {
    const file = await fileOf(whole)
    await withTestServer({ importFile: file }, async (imported) => {
      const again = exportState(imported.ctx.store)
      for (const name of ['merchants', 'checkoutSessions', 'paymentIntents', 'invoices', 'payouts', 'webhookEndpoints', 'events', 'deliveries', 'emails'] as const) {
        expect(again.collections[name], name).toEqual(whole.collections[name])
      }
    })
  })

  // The file keeps the invoice page at the exporting simulator's address; the customer is sent to this one's.
  it('leads an Invoice\'s session to the invoice page at the importing simulator\'s address, on the API and the hosted page', async () => {
    const invoice = whole.collections.invoices!.find((doc) => doc.invoiceId === busy.ids.invoice.id)!
    const sessionId = invoice.checkoutSessionIds.at(-1) as string
    const stored = whole.collections.checkoutSessions![sessionAt(whole, sessionId)]!.successUrl as string
    expect(stored).toBe(`${server().baseUrl}/i/${invoice.pageToken}`)
    await withTestServer({ importFile: await fileOf(whole) }, async (imported) => {
      const page = `${imported.baseUrl}/i/${invoice.pageToken}`
      expect(page).not.toBe(stored)
      const session = await client(imported.baseUrl, busy.keys.secret).get(`/v1/checkout-sessions/${sessionId}`)
      expect([session.body.status, session.body.successUrl, session.body.cancelUrl]).toEqual(['succeeded', page, page])
      const paidPage = await (await fetch(`${imported.baseUrl}/pay/${sessionId}`)).text()
      expect(paidPage).toContain(`href="${page}?session_id=${sessionId}"`)
    })
  })

  it('refuses money, status stamps, times and test e-mails the API could never have left, naming the file and the first bad value', async () => {
    const { ids } = busy
    const unpaid = sessionAt(whole, ids.unpaid.id)
    const paid = sessionAt(whole, ids.paid.id)
    const busyId = whole.collections.checkoutSessions![paid]!.merchantId as string
    const failedPayment = intentAt(whole, ids.failed.id)
    const payout = whole.collections.payouts!.findIndex((p) => p.id === ids.payout.id)
    expect(unpaid).toBeGreaterThan(0)
    const forgeries: [string, (state: StateFile) => void, string][] = [
      // Money: an unpaid session marked succeeded, which an import would count as earned.
      ['a succeeded session without a payment', (state) => Object.assign(state.collections.checkoutSessions![unpaid]!, { status: 'succeeded', endedAt: ids.unpaid.createdAt + 1 }), `checkoutSessions[${unpaid}].status is succeeded`],
      ['a balance no payment earned', (state) => ((state.collections.merchants![merchantAt(state, busyId)]!.balances as Doc).test += 100_000), `merchants[${merchantAt(whole, busyId)}].balances.test`],
      // Status stamps.
      ['a failed payment without its reason', (state) => (state.collections.paymentIntents![failedPayment]!.failureReason = null), `paymentIntents[${failedPayment}].failureReason is required on a failed payment`],
      ['a paid Payout without paidAt', (state) => (state.collections.payouts![payout]!.paidAt = null), `payouts[${payout}].paidAt is required on a paid Payout`],
      // Times out of order.
      ['a session ended before it opened', (state) => (state.collections.checkoutSessions![paid]!.endedAt = ids.paid.createdAt - 1), `checkoutSessions[${paid}].endedAt is before createdAt`],
      // Test mode drops a customer's e-mail.
      ['a test session with a customer\'s e-mail', (state) => (state.collections.checkoutSessions![paid]!.customerEmail = 'someone@example.test'), `checkoutSessions[${paid}].customerEmail must be null`],
    ]
    for (const [what, forge, named] of forgeries) {
      const state = structuredClone(whole)
      forge(state)
      const file = await fileOf(state)
      const started = startServer({ port: 0, importFile: file, log: () => {} })
      await expect(started, what).rejects.toThrow(StartError)
      await expect(started, what).rejects.toThrow(`${file}: ${named}`)
    }
  })

  it('refuses live objects, live keys or live Providers for a merchant whose live payments were never unlocked', async () => {
    const live = whole.collections.merchants!.findIndex((merchant) => merchant.liveUnlocked === true)
    const liveId = whole.collections.merchants![live]!.id as string
    const firstLive = (state: StateFile, name: 'checkoutSessions' | 'apiKeys') =>
      state.collections[name]!.findIndex((doc) => doc.merchantId === liveId && doc.mode === 'live')
    const locked = (state: StateFile, settings: Doc) => Object.assign(state.collections.merchants![live]!, { liveUnlocked: false, settings: { ...(state.collections.merchants![live]!.settings as Doc), ...settings } })
    const forgeries: [string, (state: StateFile) => void, string][] = [
      ['live Providers on', (state) => locked(state, { liveProviders: true }), `merchants[${live}].settings.liveProviders is true, but`],
      ['a live Checkout Session', (state) => locked(state, { liveProviders: false }), `checkoutSessions[${firstLive(whole, 'checkoutSessions')}].mode is live, but`],
      [
        'a live key and nothing else live',
        (state) => {
          locked(state, { liveProviders: false })
          for (const name of ['checkoutSessions', 'paymentIntents', 'invoices', 'payouts', 'webhookEndpoints', 'events', 'deliveries', 'emails'] as const) {
            state.collections[name] = state.collections[name]!.filter((doc) => doc.merchantId !== liveId || doc.mode !== 'live')
          }
          ;(state.collections.merchants![live]!.balances as Doc).live = 0
        },
        `apiKeys[${firstLive(whole, 'apiKeys')}].mode is live, but`,
      ],
    ]
    expect(firstLive(whole, 'checkoutSessions')).toBeGreaterThanOrEqual(0)
    for (const [what, forge, named] of forgeries) {
      const state = structuredClone(whole)
      forge(state)
      const file = await fileOf(state)
      await expect(startServer({ port: 0, importFile: file, log: () => {} }), what).rejects.toThrow(`${file}: ${named}`)
    }
  })

  it('takes http URLs in test mode on the hosts the starting simulator allows, as its API does', async () => {
    const paid = sessionAt(whole, busy.ids.paid.id)
    const state = structuredClone(whole)
    state.collections.checkoutSessions![paid]!.successUrl = 'http://app/done'
    const file = await fileOf(state)
    await expect(startServer({ port: 0, importFile: file, log: () => {} })).rejects.toThrow(`${file}: checkoutSessions[${paid}].successUrl must be HTTPS or loopback http.`)
    await withTestServer({ importFile: file, allowedHosts: ['app'] }, async (imported) => {
      expect(imported.ctx.store.get('checkoutSessions', busy.ids.paid.id)?.successUrl).toBe('http://app/done')
    })
  })

  it('leaves the data file as it was when it refuses the file to import', async () => {
    const folder = await tempFolder('bula-whole-data-')
    const dataFile = path.join(folder, 'data.json')
    await withTestServer({ dataFile }, async (running) => {
      await signupMerchant(running.baseUrl)
    })
    const before = await readFile(dataFile)
    const state = structuredClone(whole)
    state.collections.checkoutSessions![sessionAt(whole, busy.ids.paid.id)]!.customerEmail = 'someone@example.test'
    const started = startServer({ port: 0, dataFile, importFile: await fileOf(state), log: () => {} })
    await expect(started).rejects.toThrow('customerEmail must be null')
    expect(await readFile(dataFile)).toEqual(before)
  })
})
