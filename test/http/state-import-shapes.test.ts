import { describe, expect, it } from 'vitest'
import { useTestServer } from '../helpers/http.js'
import { sentInvoice } from '../helpers/invoices.js'

// A merchant's state file is untrusted input (contract §10): what it may hold must not make a later read fail.

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

})
