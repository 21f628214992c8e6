import { describe, expect, it } from 'vitest'
import { recordProblem } from '../../server/domain/records.js'

// What start-up asks of a document of a data file it cannot trust as bula wrote it (docs/storage.md, "Start-up").
describe('recordProblem', () => {
  const idempotency = {
    id: 'a'.repeat(64),
    merchantId: 'ms_1a2b',
    mode: 'test',
    route: 'POST /v1/checkout-sessions',
    createdAt: 1,
    expiresAt: 2,
    request: { amount: 1500, currency: 'FJD' },
    status: 201,
    response: '{"id":"cs_1a2b"}',
  }

  it('accepts a record as the store writes it, and one of an older bula with its body instead of the response text', () => {
    expect(recordProblem('idempotency', idempotency)).toBeNull()
    const { response: _response, ...older } = idempotency
    expect(recordProblem('idempotency', { ...older, body: { id: 'cs_1a2b' } })).toBeNull()
  })

  it('refuses an idempotency record that a replay could not answer from: a response that is not JSON, or none', () => {
    expect(recordProblem('idempotency', { ...idempotency, response: 'not json' })).toBe('Invalid `idempotency.response`: must be JSON text.')
    const { response: _response, ...withoutResponse } = idempotency
    expect(recordProblem('idempotency', withoutResponse)).toMatch(/^Invalid `idempotency.response`: a replay needs the response/)
  })

  it('opens an invoice due on any day that exists, as an older bula stored it, though the API now takes 2000 to 2199 only', () => {
    const draft = {
      id: '1',
      invoiceId: 1,
      merchantId: 'ms_1a2b',
      mode: 'test',
      status: 'draft',
      number: null,
      customerName: 'Nadi Hotel',
      customerEmail: null,
      items: [{ description: 'Mats', quantity: 1, unitPrice: 100 }],
      taxLabel: null,
      taxPercent: 0,
      vatNumber: null,
      dueDate: '0000-01-01',
      pageToken: 'a'.repeat(32),
      createdAt: 1,
      sentAt: null,
      paidAt: null,
      voidedAt: null,
      checkoutSessionIds: [],
    }
    expect(recordProblem('invoices', draft)).toBeNull()
    expect(recordProblem('invoices', { ...draft, dueDate: '2026-02-30' })).toMatch(/^Invalid `invoices.dueDate`: /)
  })

  it('names the field of any other collection, and leaves a collection this version does not know alone', () => {
    expect(recordProblem('counters', { id: 'invoiceId', last: 'x' })).toMatch(/^Invalid `counters.last`: /)
    expect(recordProblem('somethingNewer', { id: 'x', anything: true })).toBeNull()
  })
})
