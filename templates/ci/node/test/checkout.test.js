// A merchant's own test, as it would run against the real service: only the
// base URL and the key come from the environment (bula exec sets both).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'

const baseUrl = process.env.BULA_BASE_URL
const headers = { authorization: `Bearer ${process.env.BULA_API_KEY}`, 'content-type': 'application/json' }

test('a customer pays FJ$45.00 at checkout', async () => {
  assert.ok(baseUrl, 'BULA_BASE_URL is set')
  const created = await fetch(`${baseUrl}/v1/checkout-sessions`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': randomUUID() },
    body: JSON.stringify({ amount: 4500, currency: 'FJD', metadata: { orderId: '1042' } }),
  })
  assert.equal(created.status, 201)
  const session = await created.json()
  assert.equal(session.status, 'pending')

  // The simulator's stand-in for the customer on the hosted page.
  const paid = await fetch(`${baseUrl}/_sim/checkout-sessions/${session.id}/pay`, { method: 'POST', headers, body: '{"outcome":"succeeded"}' })
  assert.equal(paid.status, 200)

  const after = await (await fetch(`${baseUrl}/v1/checkout-sessions/${session.id}`, { headers })).json()
  assert.equal(after.status, 'succeeded')
})
