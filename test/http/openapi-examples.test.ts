import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import * as schemas from '../../src/schemas/index.js'
import { EXAMPLES } from '../../src/schemas/examples.js'
import { call, client, signupMerchant, useTestServer } from '../helpers/http.js'

// The examples of /openapi.json (src/schemas/examples.ts): present for every
// operation, parsed by their own schemas, and each request example accepted
// by a running simulator exactly as written.

type Json = any // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed document, read field by field

let document: Json

const server = useTestServer()
beforeAll(async () => {
  document = (await call(server().baseUrl, 'GET', '/openapi.json')).body
})

const operations = (): [string, Json][] =>
  Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Json] => [`${method.toUpperCase()} ${path}`, operation]),
  )

describe('examples in /openapi.json', () => {
  it('give every JSON request and success body, and every path parameter, an example', () => {
    const missing: string[] = []
    for (const [where, operation] of operations()) {
      const request = operation.requestBody?.content?.['application/json']
      if (request && request.example === undefined) missing.push(`${where} request`)
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const media = response.content?.['application/json']
        // The document itself is its own example.
        if (Number(status) < 300 && media && media.example === undefined && where !== 'GET /openapi.json') missing.push(`${where} ${status}`)
      }
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'path' && parameter.example === undefined) missing.push(`${where} {${parameter.name}}`)
    }
    expect(missing).toEqual([])
  })

  it('parse with the schema they are an example of', () => {
    const entries = Object.entries(EXAMPLES)
    expect(entries.length).toBeGreaterThan(40)
    for (const [name, example] of entries) {
      const schema = (schemas as unknown as Record<string, z.ZodType>)[name]!
      const parsed = schema.safeParse(example)
      expect(parsed.success, `${name}: ${parsed.error?.message}`).toBe(true)
    }
  })

  it('are the same in the component schema and on the media type', () => {
    const create = document.paths['/v1/checkout-sessions'].post
    expect(create.requestBody.content['application/json'].example).toEqual(EXAMPLES.createCheckoutSessionRequestSchema)
    expect(document.components.schemas.CreateCheckoutSessionRequest.examples).toEqual([EXAMPLES.createCheckoutSessionRequestSchema])
    expect(document.paths['/v1/checkout-sessions/{id}'].get.parameters[0].example).toBe(EXAMPLES.checkoutSessionSchema!.id)
  })
})

describe('every request example, sent as written', () => {
  const sent = new Set<string>()

  /** Sends `example` to the operation and expects its documented success status. */
  async function send(key: string, method: string, template: string, id: string | undefined, example: unknown, headers: Record<string, string> = {}) {
    const operation = document.paths[template][method.toLowerCase()]
    const [status] = Object.keys(operation.responses).filter((code) => Number(code) < 300)
    const response = await call(server().baseUrl, method, template.replace('{id}', id ?? ''), { key, body: example, headers })
    expect(response.status, `${method} ${template}: ${JSON.stringify(response.body)}`).toBe(Number(status))
    expect(operation.requestBody.content['application/json'].example).toEqual(example)
    sent.add(`${method} ${template}`)
    return response.body
  }

  it('is accepted by the simulator, in the order a merchant would send them', async () => {
    const signup = await send('', 'POST', '/_sim/merchants', undefined, EXAMPLES.signupRequestSchema)
    const key: string = signup.keys.secret
    const api = client(server().baseUrl, key)
    await send(key, 'PATCH', '/_sim/settings', undefined, EXAMPLES.updateSettingsRequestSchema)
    await send(key, 'PUT', '/_sim/rates', undefined, EXAMPLES.updateRatesRequestSchema)
    await send(key, 'POST', '/v1/webhook-endpoints', undefined, EXAMPLES.createWebhookEndpointRequestSchema)
    await send(key, 'POST', '/webhook-endpoints', undefined, EXAMPLES.createWebhookEndpointRequestSchema)
    const session = await send(key, 'POST', '/v1/checkout-sessions', undefined, EXAMPLES.createCheckoutSessionRequestSchema, { 'Idempotency-Key': 'order-1042' })
    await send(key, 'POST', '/_sim/checkout-sessions/{id}/pay', session.id, EXAMPLES.paySessionRequestSchema)
    const invoice = await send(key, 'POST', '/v1/invoices', undefined, EXAMPLES.createInvoiceRequestSchema, { 'Idempotency-Key': 'invoice-1' })
    await send(key, 'PATCH', '/_sim/invoices/{id}', String(invoice.id), EXAMPLES.updateInvoiceRequestSchema)
    expect((await api.post(`/v1/invoices/${invoice.id}/send`, undefined, { headers: { 'Idempotency-Key': 'send-1' } })).status).toBe(200)
    await send(key, 'POST', '/_sim/invoices/{id}/pay', String(invoice.id), EXAMPLES.payInvoiceRequestSchema)
    await send(key, 'POST', '/_sim/payouts/fail-next', undefined, EXAMPLES.failNextPayoutRequestSchema)
    await send(key, 'POST', '/_sim/clock/advance', undefined, EXAMPLES.advanceClockRequestSchema)
    const [event] = (await api.get('/_sim/events?limit=1')).body.data
    await send(key, 'POST', '/_sim/events/{id}/resend', event.event_id, EXAMPLES.resendEventRequestSchema)
    await send(key, 'POST', '/_sim/dashboard/login-links', undefined, EXAMPLES.emptyBodySchema)
    await send(key, 'PUT', '/_sim/webhook-faults', undefined, EXAMPLES.webhookFaultsRequestSchema)
    await send(key, 'POST', '/_sim/faults', undefined, EXAMPLES.createApiFaultRequestSchema)
    await send(key, 'POST', '/v1/api-keys', undefined, EXAMPLES.createApiKeyRequestSchema)
    await send(key, 'POST', '/api-keys', undefined, EXAMPLES.createApiKeyRequestSchema)

    // The verification example sends a personal ID: an individual's document.
    const individual = (await signupMerchant(server().baseUrl, 'individual')).keys.secret
    await send(individual, 'POST', '/_sim/verification', undefined, EXAMPLES.submitVerificationRequestSchema)
    await send(individual, 'POST', '/_sim/verification/reject', undefined, EXAMPLES.rejectVerificationRequestSchema)

    // A state file belongs to the merchant that exported it: the example, with this merchant's id in place of the recorded one.
    const state = EXAMPLES.importMerchantStateRequestSchema!
    const ownState = JSON.parse(JSON.stringify(state).replaceAll(String(state.merchantId), (await call(server().baseUrl, 'GET', '/v1/merchants/me', { key: individual })).body.id))
    const imported = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: individual, body: ownState })
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    expect(imported.body.imported).toBe(EXAMPLES.importMerchantStateResponseSchema!.imported)
    sent.add('POST /_sim/state/import')

    const withBody = operations()
      .filter(([, operation]) => operation.requestBody)
      .map(([where]) => where)
    expect(withBody.filter((where) => !sent.has(where))).toEqual([])
  })
})
