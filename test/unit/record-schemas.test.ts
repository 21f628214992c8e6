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

  it('names the field of any other collection, and leaves a collection this version does not know alone', () => {
    expect(recordProblem('counters', { id: 'invoiceId', last: 'x' })).toMatch(/^Invalid `counters.last`: /)
    expect(recordProblem('somethingNewer', { id: 'x', anything: true })).toBeNull()
  })
})
