import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoreWriteError } from '../../server/store/types.js'
import { DashboardAgent } from '../helpers/dashboard.js'
import { call, client, useTestServer } from '../helpers/http.js'
import { sentInvoice } from '../helpers/invoices.js'

// One commit rule for every surface (server/http/handle.ts runCommitted): a
// write the disk refuses is 503 storage_unavailable on the API, the hosted
// checkout and invoice pages and the dashboard, each in its own rendering,
// while reads go on (docs/architecture.md).

let key: string
let sessionId: string
let invoicePath: string
let dashboard: DashboardAgent
let commit: () => Promise<void>

const server = useTestServer()
beforeAll(async () => {
  const sent = await sentInvoice(server().baseUrl)
  key = sent.key
  invoicePath = new URL(sent.invoice.url as string).pathname
  const session = await client(server().baseUrl, key).post('/v1/checkout-sessions', { amount: 2500, currency: 'FJD' }, { headers: { 'idempotency-key': 'commit-rule-1' } })
  sessionId = session.body.id
  dashboard = await DashboardAgent.signIn(server().baseUrl, key)
  // The disk refuses every write from here on, as a full disk does (test/durability/edges.test.ts fills a real one).
  commit = server().ctx.store.commit.bind(server().ctx.store)
  server().ctx.store.commit = () => Promise.reject(new StoreWriteError('Could not write data.json.journal (ENOSPC: no space left on device)'))
})
afterAll(async () => {
  server().ctx.store.commit = commit
})

describe('a write the disk refuses', () => {
  it('is 503 storage_unavailable in the API envelope, without the disk\'s path', async () => {
    const refused = await client(server().baseUrl, key).post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { headers: { 'idempotency-key': 'commit-rule-2' } })
    expect(refused.status).toBe(503)
    expect(refused.body.error.code).toBe('storage_unavailable')
    expect(refused.body.error.message).toMatch(/not confirmed/)
    expect(refused.body.error.message).not.toContain('journal')
  })

  it('is a 503 page on the hosted checkout: the payment is not confirmed', async () => {
    const response = await fetch(`${server().baseUrl}/pay/${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'provider=card&outcome=succeeded',
      redirect: 'manual',
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toContain('Payment not confirmed')
  })

  it('is a 503 page on the hosted invoice: the payment is not started', async () => {
    const response = await fetch(`${server().baseUrl}${invoicePath}/pay`, { method: 'POST', redirect: 'manual' })
    expect(response.status).toBe(503)
    expect(await response.text()).toContain('Payment not started')
  })

  it('is a flash on the dashboard, back where the form was', async () => {
    const refused = await dashboard.submit('/dashboard/developers', '/dashboard/developers/keys', { type: 'secret' })
    expect(refused.status).toBe(303)
    expect((await dashboard.follow(refused)).html).toContain('The change could not be saved')
  })

  it('leaves reads answering', async () => {
    expect((await call(server().baseUrl, 'GET', '/v1/merchants/me', { key })).status).toBe(200)
    expect((await fetch(`${server().baseUrl}/pay/${sessionId}`)).status).toBe(200)
    expect((await dashboard.get('/dashboard')).status).toBe(200)
  })
})
