import { DAY, HOUR, client, signupMerchant } from './http.js'
import { idempotencyKey, merchantWithLiveData } from './live-data.js'

export type Doc = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- a state file's documents, edited as a forger would
export type StateFile = { collections: Record<string, Doc[]> }
type Api = ReturnType<typeof client>

async function ok(response: Promise<{ status: number; body: any }>) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { status, body } = await response
  if (status >= 300) throw new Error(JSON.stringify(body))
  return body
}

/**
 * A business merchant with every way a test session and its payment can end, made through the API: paid,
 * failed and then paid in a new session, processing, paid after its expiry, expired, cancelled, set to
 * expire at the earliest the API allows, two quote sessions at different rates, an Invoice paid after a
 * failed try, an Invoice voided after a failed try, and a Payout. For the state import tests
 * (docs/security.md, "State files"): its export must import back unchanged, and each forgery of it be refused.
 */
export async function busyMerchant(baseUrl: string) {
  const { keys } = await signupMerchant(baseUrl)
  const api = client(baseUrl, keys.secret)
  const open = (body: object) => ok(api.post('/v1/checkout-sessions', { currency: 'FJD', ...body }, idempotencyKey()))
  const pay = (id: string, outcome: string, provider = 'card') => ok(api.post(`/_sim/checkout-sessions/${id}/pay`, { outcome, provider }))
  await ok(api.patch('/_sim/settings', { payoutSchedule: 'manual' }))

  const paid = await open({ amount: 1500 })
  await pay(paid.id, 'succeeded')
  const failed = await open({ amount: 700 })
  await pay(failed.id, 'failed')
  const retried = await open({ amount: 700 })
  await pay(retried.id, 'succeeded', 'mpaisa')
  const processing = await open({ amount: 900 })
  await pay(processing.id, 'processing', 'mycash')
  const late = await open({ amount: 1100, expiresAt: (await ok(api.get('/_sim/clock'))).now + HOUR })
  await pay(late.id, 'processing')
  const expired = await open({ amount: 300 })
  const cancelled = await open({ amount: 200 })
  await ok(api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`))
  const quoted = await open({ currency: undefined, quote: { amount: 1234, currency: 'USD' } })
  await pay(quoted.id, 'succeeded')
  await ok(api.put('/_sim/rates', { AUD: '1.473321' }))
  const quotedAud = await open({ currency: undefined, quote: { amount: 777, currency: 'AUD' } })
  await pay(quotedAud.id, 'succeeded')

  const invoiceBody = { customerName: 'Nadi Hotel', dueDate: '2026-12-31', taxLabel: 'VAT', taxPercent: 12.5, items: [{ description: 'Mats', quantity: 3, unitPrice: 2501 }] }
  const invoice = await ok(api.post('/v1/invoices', invoiceBody, idempotencyKey()))
  await ok(api.post(`/v1/invoices/${invoice.id}/send`, undefined, idempotencyKey()))
  await ok(api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'failed' }))
  await ok(api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'succeeded' }))
  const voided = await ok(api.post('/v1/invoices', invoiceBody, idempotencyKey()))
  await ok(api.post(`/v1/invoices/${voided.id}/send`, undefined, idempotencyKey()))
  await ok(api.post(`/_sim/invoices/${voided.id}/pay`, { outcome: 'failed' }))
  await ok(api.post(`/v1/invoices/${voided.id}/void`, undefined, idempotencyKey()))
  const payout = (await ok(api.post('/_sim/payouts/request'))).payout

  // Past every expiry: `expired` is cancelled, `late` stays pending with its payment, which then succeeds.
  await ok(api.post('/_sim/clock/advance', { ms: 2 * DAY }))
  await pay(late.id, 'succeeded')
  const now = (await ok(api.get('/_sim/clock'))).now
  // The earliest expiry the API allows, 30 minutes after creation, give or take the request's own time.
  const soon = await open({ amount: 400, expiresAt: now + 30 * 60 * 1000 + 5000 })
  const unpaid = await open({ amount: 500 })
  return { api, keys, ids: { paid, failed, retried, processing, late, expired, cancelled, quoted, quotedAud, soon, unpaid, invoice, voided, payout } }
}

/**
 * A business merchant's live mode with every way a live Payout ends: paid (sent by the disbursement run,
 * the money arrived an hour later), failed (the payout fault), and pending, not yet sent; and a paid
 * session whose customer's e-mail is kept for the receipt (merchantWithLiveData).
 */
export async function liveMerchantWithPayouts(baseUrl: string) {
  const m = await merchantWithLiveData(baseUrl)
  const { live } = m
  await ok(live.patch('/_sim/settings', { payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' } }))
  const payAnother = async (amount: number) => {
    const session = await ok(live.post('/v1/checkout-sessions', { amount, currency: 'FJD', customerEmail: 'another.customer@example.test' }, idempotencyKey()))
    await ok(live.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' }))
  }
  await ok(live.post('/_sim/clock/advance', { ms: 2 * DAY }))
  await payAnother(1200)
  await ok(live.post('/_sim/payouts/fail-next', { reason: 'The bank refused the transfer.' }))
  await ok(live.post('/_sim/payouts/request'))
  await ok(live.post('/_sim/clock/advance', { ms: 2 * DAY }))
  await payAnother(800)
  await ok(live.post('/_sim/payouts/request'))
  return m
}

/** Everything an import sets that the API shows: the balance, sessions, payments, Invoices and Payouts. */
export async function snapshot(api: Api) {
  return {
    balance: (await api.get('/v1/merchants/me')).body.balance,
    sessions: (await api.get('/v1/checkout-sessions?limit=100')).body,
    invoices: (await api.get('/v1/invoices?limit=100')).body,
    payouts: (await api.get('/v1/payouts?limit=100')).body,
  }
}

/** Where a document sits in a state file's collection: the index its refusal names. */
export const sessionAt = (file: StateFile, id: string) => file.collections.checkoutSessions!.findIndex((session) => session.id === id)
export const intentAt = (file: StateFile, sessionId: string) => file.collections.paymentIntents!.findIndex((intent) => intent.checkoutSessionId === sessionId)
