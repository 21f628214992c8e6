import { createSession, defineCases, tryCreateSession, type Session } from './support.js'

export const errorCases = defineCases([
  {
    id: 'errors/envelope',
    title: 'Errors of every kind have the body {error: {code, message}} as JSON',
    rules: ['errors.envelope', 'error.see-errors', 'intro.json-bodies'],
    async run(t) {
      const session = await createSession(t)
      t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`))
      const answers = [
        await tryCreateSession(t, { amount: -1, currency: 'FJD' }),
        await t.anonymous.get('/v1/checkout-sessions'),
        await t.api.get('/v1/checkout-sessions/cs_conformance_missing'),
        await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`),
      ]
      for (const answer of answers) {
        t.check(answer.status >= 400, `${answer.what} answered ${answer.status}, expected an error`)
        t.expectEnvelope(answer)
        t.check((answer.headers.get('content-type') ?? '').startsWith('application/json'), `${answer.what}: the error is not application/json`)
      }
    },
  },
  {
    id: 'errors/malformed-json',
    title: 'A body that is not JSON is 400 invalid_request',
    rules: ['errors.invalid-request'],
    async run(t) {
      t.expectError(await t.api.post('/v1/checkout-sessions', undefined, { rawBody: '{"amount": 1500, "currency": ', idempotencyKey: t.newKey() }), 400, 'invalid_request')
    },
  },
  {
    id: 'errors/invalid-field',
    title: 'A field of the wrong type or out of range is 400 invalid_request',
    rules: ['errors.invalid-request', 'checkout-session-endpoints.create-errors'],
    async run(t) {
      for (const body of [
        { amount: 0, currency: 'FJD' },
        { amount: 1500, currency: 'FJD', metadata: 'order 7' },
        { amount: 1500, currency: 'FJD', expiresAt: 'tomorrow' },
      ]) {
        t.expectError(await tryCreateSession(t, body), 400, 'invalid_request', JSON.stringify(body))
      }
    },
  },
])

export const versioningCases = defineCases([
  {
    id: 'versioning/v1-prefix',
    title: 'The payment API answers under /v1',
    rules: ['versioning.v1-prefix'],
    async run(t) {
      for (const path of ['/v1/merchants/me', '/v1/checkout-sessions?limit=1', '/v1/payouts?limit=1']) t.expectStatus(await t.api.get(path, { record: 'shape' }), 200)
    },
  },
  {
    id: 'versioning/currency-fjd',
    title: 'In v1 every session is in FJD, also one created from a quote',
    rules: ['versioning.v1-prefix', 'checkout-session.amount-converted'],
    needs: ['business'],
    async run(t) {
      const quoted = await createSession(t, { quote: { amount: 500, currency: 'AUD' } })
      t.check(quoted.currency === 'FJD', `a quoted session's currency is ${quoted.currency}`)
      const list = t.ok(await t.api.get('/v1/checkout-sessions?limit=100', { record: 'shape' })).data as Session[]
      t.check(list.every((session) => session.currency === 'FJD'), 'a listed session is not in FJD')
    },
  },
])
