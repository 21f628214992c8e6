import { describe, expect, it } from 'vitest'
import { DashboardAgent } from '../helpers/dashboard.js'
import { useTestServer } from '../helpers/http.js'
import { idempotent, sentInvoice } from '../helpers/invoices.js'

// A merchant's state file is untrusted input (docs/security.md, "State files"): what it may hold must not make a later read fail.

const server = useTestServer()

describe('state import: documents whose fields agree with their type, not only with JSON', () => {
  it('refuses a sent Invoice without its number or send time, which the hosted page and the PDF would answer 500 to', async () => {
    const { api, invoice } = await sentInvoice(server().baseUrl)
    const exported = (await api.get('/_sim/state')).body
    for (const [field, param] of [
      ['number', 'invoices[0].number'],
      ['sentAt', 'invoices[0].sentAt'],
    ] as const) {
      const state = structuredClone(exported)
      state.collections.invoices[0][field] = null
      const refused = await api.post('/_sim/state/import', state)
      expect(refused.status, JSON.stringify(refused.body)).toBe(400)
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', param })
    }
    expect((await api.get(`/v1/invoices/${invoice.id}/pdf`)).status).toBe(200)
  })

  // Found by an adversarial pass: an attachment's type is sent as the download's Content-Type, and Node refused this one.
  it('refuses an e-mail attachment whose type is not a media type, which the dashboard\'s download answered 500 to', async () => {
    const { api, invoice } = await sentInvoice(server().baseUrl)
    expect((await api.post(`/_sim/invoices/${invoice.id}/email`)).status).toBe(200)
    const exported = (await api.get('/_sim/state')).body
    expect(exported.collections.emails[0].attachments[0].contentType).toBe('application/pdf')
    for (const contentType of ['text/html\r\nSet-Cookie: pwn=1', 'application/pdf; name="a\u0000"', 'html', 'text /html', '']) {
      const state = structuredClone(exported)
      state.collections.emails[0].attachments[0].contentType = contentType
      const refused = await api.post('/_sim/state/import', state)
      expect([contentType, refused.status, refused.body.error?.param]).toEqual([contentType, 400, 'emails[0].attachments[0].contentType'])
    }
    expect((await api.get('/_sim/state')).body).toEqual(exported)
  })

  it('takes an attachment type with parameters, and the dashboard hands the attachment out with it', async () => {
    const { api, key, invoice } = await sentInvoice(server().baseUrl)
    const { email } = (await api.post(`/_sim/invoices/${invoice.id}/email`)).body
    const state = (await api.get('/_sim/state')).body
    state.collections.emails[0].attachments[0].contentType = 'text/plain; charset="utf-8"; format=flowed'
    expect((await api.post('/_sim/state/import', state)).status).toBe(200)
    const download = await (await DashboardAgent.signIn(server().baseUrl, key)).get(`/dashboard/outbox/${email.id}/attachments/0`)
    expect([download.status, download.headers.get('content-type')]).toEqual([200, 'text/plain; charset="utf-8"; format=flowed'])
  })

  it('keeps the Payouts page up when an imported event\'s object is not what its type says', async () => {
    const { api, key } = await sentInvoice(server().baseUrl)
    const session = await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, idempotent())
    expect((await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded', provider: 'mpaisa' })).status).toBe(200)
    const state = (await api.get('/_sim/state')).body
    const events = state.collections.events as { type: string; object: unknown }[]
    expect(events.some((event) => event.type === 'checkout_session.succeeded')).toBe(true)
    for (const event of events) event.object = { id: 'cs_notasession' }
    expect((await api.post('/_sim/state/import', state)).status).toBe(200)

    const page = await (await DashboardAgent.signIn(server().baseUrl, key)).get('/dashboard/payouts')
    expect(page.status).toBe(200)
  })
})
