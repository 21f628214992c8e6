import { beforeAll, describe, expect, it } from 'vitest'
import { call, signupMerchant, useTestServer } from '../helpers/http.js'

// Issue 13, items 3 to 5: every route holds its input to its declaration (server/http/api-route.ts).

let secret: string
type Operation = { method: string; path: string; takesBody: boolean }
let operations: Operation[]

const server = useTestServer()
beforeAll(async () => {
  secret = (await signupMerchant(server().baseUrl)).keys.secret
  const document = (await call(server().baseUrl, 'GET', '/openapi.json')).body
  operations = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, item]) =>
    Object.entries(item)
      // The catch-all of a path answers 405 whatever is sent.
      .filter(([, operation]) => !('405' in operation.responses))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'probe'), takesBody: 'requestBody' in operation || method !== 'get' })),
  )
})

const headers = { 'idempotency-key': 'strict-input' }

describe('every route is strict', () => {
  it('refuses an unknown query parameter on every route, naming it (item 3)', async () => {
    expect(operations.length).toBeGreaterThan(50)
    const accepted: string[] = []
    for (const { method, path } of operations) {
      const answer = await call(server().baseUrl, method, `${path}?zz_unknown=1`, { key: secret, headers, body: method === 'GET' ? undefined : {} })
      if (answer.status !== 400 || answer.body?.error?.param !== 'zz_unknown') accepted.push(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body?.error ?? answer.body).slice(0, 120)}`)
    }
    expect(accepted).toEqual([])
  })

  // A name is given back as sent: a bracket in it made it `["status[]"]` for a while (27 November).
  it('names an unknown query parameter with brackets or a dot as it was sent', async () => {
    for (const name of ['status[]', 'a[b]', 'a.b']) {
      const answer = await call(server().baseUrl, 'GET', `/v1/checkout-sessions?${encodeURIComponent(name)}=1`, { key: secret })
      expect([name, answer.status, answer.body.error?.param]).toEqual([name, 400, name])
    }
  })

  it('refuses a query parameter given twice by saying so, on /v1 as on the dashboard', async () => {
    // Before, the message judged the pair as a bad value: "limit must be a whole number from 1 to 100".
    for (const [path, name] of [
      ['/v1/checkout-sessions?limit=5&limit=6', 'limit'],
      ['/v1/checkout-sessions?status=open&status=complete', 'status'],
      ['/v1/invoices?starting_after=1&starting_after=2', 'starting_after'],
    ] as const) {
      const answer = await call(server().baseUrl, 'GET', path, { key: secret })
      expect(answer.status, path).toBe(400)
      expect(answer.body.error, path).toEqual({ code: 'invalid_request', message: `Invalid \`${name}\`: give it once, not 2 times.`, param: name })
    }
  })

  it('refuses an unknown body field and a body that is not an object on every route that takes one (item 4)', async () => {
    const accepted: string[] = []
    for (const { method, path } of operations.filter((operation) => operation.method !== 'GET')) {
      for (const body of [{ zz_unknown: 1 }, [1]]) {
        const answer = await call(server().baseUrl, method, path, { key: secret, headers, body })
        const refused = answer.status === 400 && answer.body?.error?.code === 'invalid_request'
        if (!refused) accepted.push(`${method} ${path} ${JSON.stringify(body)}: ${answer.status}`)
      }
    }
    expect(accepted).toEqual([])
    // The dashboard's login links, whose body is declared empty.
    const link = await call(server().baseUrl, 'POST', '/_sim/dashboard/login-links', { key: secret, body: { zz_unknown: 1 } })
    expect(link.body.error).toMatchObject({ code: 'invalid_request', param: 'zz_unknown' })
  })

  it('answers a body that is not JSON with 415 naming Content-Type, and changes nothing (item 5)', async () => {
    const created = await call(server().baseUrl, 'POST', '/v1/invoices', {
      key: secret,
      headers: { 'idempotency-key': 'strict-415' },
      body: { customerName: 'X', dueDate: '2026-12-31', items: [{ description: 'Y', quantity: 1, unitPrice: 100 }] },
    })
    for (const [path, rawBody] of [
      ['/v1/checkout-sessions', JSON.stringify({ amount: 100, currency: 'FJD' })],
      [`/v1/invoices/${created.body.id}/send`, 'this is not json'],
    ] as const) {
      const answer = await call(server().baseUrl, 'POST', path, { key: secret, headers: { 'idempotency-key': `415-${path}`, 'content-type': 'text/plain' }, rawBody })
      expect(answer.status, path).toBe(415)
      expect(answer.body.error).toMatchObject({ code: 'unsupported_media_type', param: 'Content-Type' })
    }
    expect((await call(server().baseUrl, 'GET', `/v1/invoices/${created.body.id}`, { key: secret })).body.status).toBe('draft')
    // No body at all, or an empty one, is still fine where the route takes none.
    const sent = await call(server().baseUrl, 'POST', `/v1/invoices/${created.body.id}/send`, { key: secret, headers: { 'idempotency-key': 'strict-send' } })
    expect(sent.status).toBe(200)
  })

  it('reads a plain JSON body directly exactly as express.json reads any other: the same answer for every body', async () => {
    // `application/json` with a Content-Length takes the direct reader (server/http/json-body.ts); the same body
    // with `charset=utf-8` written without a space goes through express.json. Both must answer alike.
    const bodies = ['', '   ', '{"amount": 100, "currency": "FJD"}', ' \n\t{"amount":100,"currency":"FJD"}', '\uFEFF{"amount":100,"currency":"FJD"}', '[1]', '"text"', '42', 'null', '{"amount":', '{"amount": 1e400}', '\u2028{}', '{"__proto__": {}}']
    const answers = async (contentType: string) => {
      const seen: string[] = []
      for (const [index, rawBody] of bodies.entries()) {
        const answer = await call(server().baseUrl, 'POST', '/v1/checkout-sessions', {
          key: secret,
          headers: { 'idempotency-key': `reader-${contentType}-${index}`, 'content-type': contentType },
          rawBody,
        })
        seen.push(`${JSON.stringify(rawBody)}: ${answer.status} ${answer.body?.error ? JSON.stringify(answer.body.error) : answer.body?.status}`)
      }
      return seen
    }
    const direct = await answers('application/json')
    expect(direct).toEqual(await answers('application/json;charset=utf-8'))
    // And the answers are the ones each kind of body deserves.
    expect(direct.filter((line) => line.endsWith(' 201 pending'))).toHaveLength(3)
    // Whitespace, a cut-off object and a line separator before the object are not JSON; a string, a number and null are JSON, but no object.
    expect(direct.filter((line) => line.includes('The body is not valid JSON.'))).toHaveLength(3)
    expect(direct.filter((line) => line.includes('The body must be a JSON object.'))).toHaveLength(3)
  })
})

// Found by an adversarial pass: a display name of "Evil\r\nBcc: victim@x.test" became a header line of its own in
// an invoice e-mail's subject and in the PDF's author, and the dashboard's one-line fields lost tabs and line breaks.
describe('one-line text', () => {
  const business = async () => {
    const { keys } = await signupMerchant(server().baseUrl, 'business')
    return keys.secret
  }
  const invoice = { customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: [{ description: 'Mats', quantity: 1, unitPrice: 100 }] }
  const destination = { type: 'bank_account', bankName: 'BSP', accountName: 'Kai Store Ltd', accountNumber: '12345678' }

  it.each(['Evil\r\nBcc: victim@x.test', 'tab\there', 'nul\u0000', 'bell\u0007', 'del\u007f', 'c1\u0085'])('refuses %j wherever a name, label or item is typed, naming the field', async (text) => {
    const key = await business()
    const cases: [string, string, object, string][] = [
      ['POST', '/_sim/merchants', { email: 'a@b.example', name: text, tier: 'business' }, 'name'],
      ['PATCH', '/_sim/settings', { displayName: text }, 'displayName'],
      ['PATCH', '/_sim/settings', { vatNumber: text }, 'vatNumber'],
      ['PATCH', '/_sim/settings', { payoutDestination: { ...destination, bankName: text } }, 'payoutDestination.bankName'],
      ['POST', '/v1/invoices', { ...invoice, customerName: text }, 'customerName'],
      ['POST', '/v1/invoices', { ...invoice, items: [{ ...invoice.items[0], description: text }] }, 'items[0].description'],
      ['POST', '/v1/invoices', { ...invoice, taxLabel: text, taxPercent: 15 }, 'taxLabel'],
    ]
    for (const [method, path, body, param] of cases) {
      const answer = await call(server().baseUrl, method, path, { key, headers: { 'idempotency-key': `line-${param}-${Math.random()}` }, body })
      expect([answer.status, answer.body.error?.code, answer.body.error?.param], `${method} ${path} ${param}`).toEqual([400, 'invalid_request', param])
      expect(answer.body.error.message).toContain('must be one line, without control characters')
    }
    expect((await call(server().baseUrl, 'GET', '/v1/invoices', { key })).body.data).toEqual([])
  })

  it('takes the marks and scripts a name may hold, and trims the ends as before', async () => {
    const key = await business()
    const named = await call(server().baseUrl, 'PATCH', '/_sim/settings', { key, body: { displayName: '  Ōtā & Sons « كافا » \u200d Ltd  ' } })
    expect([named.status, named.body.displayName]).toEqual([200, 'Ōtā & Sons « كافا » \u200d Ltd'])
  })
})
