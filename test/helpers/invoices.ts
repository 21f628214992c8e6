import { expect } from 'vitest'
import { client, signupMerchant } from './http.js'

let keyCounter = 0
/** A fresh Idempotency-Key header for one create, send or void. */
export const idempotent = () => ({ headers: { 'idempotency-key': `invoice-test-${++keyCounter}` } })

export const SAMPLE_INVOICE = {
  customerName: 'Lautoka Surf Club',
  customerEmail: 'accounts@surfclub.example',
  dueDate: '2026-12-15',
  taxLabel: 'VAT',
  // Fiji's standard VAT rate since 1 August 2025.
  taxPercent: 12.5,
  vatNumber: 'FJ-VAT-50-12345',
  items: [
    { description: 'Kava bowl (tanoa), hand carved', quantity: 2, unitPrice: 45050 },
    { description: 'Delivery to Lautoka', quantity: 1, unitPrice: 3500 },
  ],
}

/** A new business with a display name (and any other `settings`) and one draft invoice made through the API; `send()` sends it. */
export async function draftInvoice(
  base: string,
  body: Record<string, unknown> = SAMPLE_INVOICE,
  displayName = 'Kava Kitchen Ltd',
  settings: Record<string, unknown> = {},
) {
  const { keys } = await signupMerchant(base, 'business')
  const api = client(base, keys.secret)
  expect((await api.patch('/_sim/settings', { displayName, ...settings })).status).toBe(200)
  const draft = await api.post('/v1/invoices', body, idempotent())
  expect(draft.status).toBe(201)
  const send = async () => {
    const sent = await api.post(`/v1/invoices/${draft.body.id}/send`, undefined, idempotent())
    expect(sent.status).toBe(200)
    return sent.body
  }
  return { api, key: keys.secret, draft: draft.body, send }
}

/** The same, sent. */
export async function sentInvoice(base: string, body?: Record<string, unknown>, displayName?: string, settings?: Record<string, unknown>) {
  const { api, key, send } = await draftInvoice(base, body, displayName, settings)
  return { api, key, invoice: await send() }
}
