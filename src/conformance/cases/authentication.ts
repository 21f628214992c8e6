import { createSession, defineCases, invoiceBody, tryCreateSession, type Session } from './support.js'

/** Every `/v1` operation of the spec, with a body where it takes one. */
const V1_OPERATIONS: { method: string; path: string; body?: unknown; idempotent?: boolean }[] = [
  { method: 'POST', path: '/v1/checkout-sessions', body: { amount: 1500, currency: 'FJD' }, idempotent: true },
  { method: 'GET', path: '/v1/checkout-sessions' },
  { method: 'GET', path: '/v1/checkout-sessions/cs_conformance_missing' },
  { method: 'POST', path: '/v1/checkout-sessions/cs_conformance_missing/cancel' },
  { method: 'POST', path: '/v1/invoices', body: invoiceBody({ dueDate: '2030-01-31' }), idempotent: true },
  { method: 'GET', path: '/v1/invoices' },
  { method: 'GET', path: '/v1/invoices/1' },
  { method: 'POST', path: '/v1/invoices/1/send', idempotent: true },
  { method: 'POST', path: '/v1/invoices/1/void', idempotent: true },
  { method: 'GET', path: '/v1/invoices/1/pdf' },
  { method: 'GET', path: '/v1/merchants/me' },
  { method: 'GET', path: '/v1/payouts' },
  { method: 'GET', path: '/v1/payouts/po_conformance_missing' },
]

export const authenticationCases = defineCases([
  {
    id: 'authentication/missing-key',
    title: 'A request without Authorization is refused with 401 and the error envelope',
    rules: ['authentication.bearer', 'errors.unauthorized', 'endpoints.bearer-key'],
    async run(t) {
      const answer = await t.anonymous.get('/v1/merchants/me')
      t.expectStatus(answer, 401)
      t.expectEnvelope(answer)
    },
  },
  {
    id: 'authentication/invalid-key',
    title: 'An unknown key, or a key not sent as Bearer, is refused with 401',
    rules: ['authentication.bearer', 'errors.unauthorized'],
    async run(t) {
      const unknown = await t.as(`sk_test_${'0'.repeat(32)}`, 'unknown key').get('/v1/merchants/me')
      t.expectStatus(unknown, 401)
      t.expectEnvelope(unknown)
      const basic = await t.anonymous.get('/v1/merchants/me', { headers: { authorization: `Basic ${Buffer.from(`${t.merchant.secret}:`).toString('base64')}` } })
      t.expectStatus(basic, 401, 'the key sent as Basic, not Bearer')
    },
  },
  {
    id: 'authentication/every-route-needs-key',
    title: 'Every /v1 operation answers 401 without a key, before anything else',
    rules: ['endpoints.bearer-key', 'authentication.bearer', 'errors.unauthorized'],
    async run(t) {
      for (const operation of V1_OPERATIONS) {
        const answer = await t.anonymous.call(operation.method, operation.path, {
          body: operation.body,
          idempotencyKey: operation.idempotent ? t.newKey() : undefined,
        })
        t.expectStatus(answer, 401)
      }
    },
  },
  {
    id: 'authentication/key-prefixes',
    title: 'Test keys are sk_test_ (secret) and pk_test_ (publishable)',
    rules: ['authentication.key-types'],
    needs: ['publishable-key'],
    async run(t) {
      t.check(t.merchant.secret.startsWith('sk_test_'), 'the secret test key does not start with sk_test_')
      t.check(t.merchant.publishable?.startsWith('pk_test_'), 'the publishable test key does not start with pk_test_')
      const me = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(me.mode === 'test', `an sk_test_ key's merchant answers mode ${JSON.stringify(me.mode)}, expected "test"`)
    },
  },
  {
    id: 'authentication/publishable-creates-session',
    title: 'A publishable key creates a Checkout Session, which the secret key then reads',
    rules: ['authentication.key-types', 'checkout-session-endpoints.create'],
    needs: ['publishable-key'],
    async run(t) {
      const session = await createSession(t, { metadata: { via: 'publishable' } }, t.publishable)
      t.check(session.status === 'pending' && session.mode === 'test', 'the session made with pk_test_ is not a pending test session')
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(read.id === session.id, 'the secret key reads another session')
    },
  },
  {
    id: 'authentication/publishable-forbidden',
    title: 'A publishable key is refused with permission_error / publishable_key_forbidden everywhere but session creation',
    rules: ['authentication.publishable-forbidden', 'errors.publishable-key-forbidden', 'authentication.key-types'],
    needs: ['publishable-key'],
    async run(t) {
      const session = await createSession(t)
      const attempts = [
        await t.publishable.get('/v1/checkout-sessions'),
        await t.publishable.get(`/v1/checkout-sessions/${session.id}`),
        await t.publishable.post(`/v1/checkout-sessions/${session.id}/cancel`),
        await t.publishable.get('/v1/merchants/me'),
        await t.publishable.get('/v1/payouts'),
        await t.publishable.post('/api-keys', { type: 'secret', mode: 'test' }),
        await t.publishable.get('/webhook-endpoints'),
      ]
      for (const answer of attempts) {
        t.check(answer.status >= 400 && answer.status < 500, `${answer.what} with pk_test_ answered ${answer.status}, expected a refusal`)
        t.expectEnvelope(answer)
        const error = (answer.body as { error: Record<string, unknown> }).error
        const names = Object.values(error).filter((value) => typeof value === 'string')
        t.check(
          names.includes('publishable_key_forbidden') && names.includes('permission_error'),
          `${answer.what} with pk_test_ answered ${JSON.stringify(error)}, expected permission_error / publishable_key_forbidden`,
        )
      }
      const still = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(still.status === 'pending', 'the cancel refused to the publishable key changed the session')
    },
  },
  {
    id: 'authentication/secret-everywhere',
    title: 'The secret key is taken on every /v1 read',
    rules: ['authentication.secret-everywhere'],
    async run(t) {
      for (const path of ['/v1/checkout-sessions', '/v1/merchants/me', '/v1/payouts', '/v1/invoices']) {
        const answer = await t.api.get(path, { record: 'shape' })
        if (path === '/v1/invoices' && t.merchant.tier !== 'business') t.expectError(answer, 403, 'business_only')
        else t.expectStatus(answer, 200)
      }
    },
  },
  {
    id: 'authentication/key-mode',
    title: 'What a test key creates is in test mode, and the merchant reads as mode test',
    rules: ['authentication.key-mode', 'checkout-session.mode'],
    async run(t) {
      const session = await createSession(t)
      t.check(session.mode === 'test', `a session made with sk_test_ has mode ${JSON.stringify(session.mode)}`)
      const me = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(me.mode === 'test', `merchants/me with sk_test_ has mode ${JSON.stringify(me.mode)}`)
    },
  },
  {
    id: 'authentication/business-only',
    title: 'Every Invoice route answers 403 business_only to an Individual account',
    rules: ['authentication.business', 'invoice-endpoints.business-only', 'errors.business-only'],
    needs: ['individual'],
    async run(t) {
      const answers = [
        await t.api.post('/v1/invoices', invoiceBody(), { idempotencyKey: t.newKey() }),
        await t.api.get('/v1/invoices'),
        await t.api.get('/v1/invoices/1'),
        await t.api.post('/v1/invoices/1/send', undefined, { idempotencyKey: t.newKey() }),
        await t.api.post('/v1/invoices/1/void', undefined, { idempotencyKey: t.newKey() }),
        await t.api.get('/v1/invoices/1/pdf'),
      ]
      for (const answer of answers) t.expectError(answer, 403, 'business_only')
    },
  },
  {
    id: 'authentication/quote-business-only',
    title: 'An Individual account cannot create a Checkout Session with a quote',
    rules: ['authentication.business', 'create-checkout-session.quote-test-business'],
    needs: ['individual'],
    async run(t) {
      const answer = await tryCreateSession(t, { quote: { amount: 1000, currency: 'USD' } })
      t.check(answer.status >= 400 && answer.status < 500, `a quote from an Individual account answered ${answer.status}, expected a refusal`)
      t.expectEnvelope(answer)
    },
  },
])
