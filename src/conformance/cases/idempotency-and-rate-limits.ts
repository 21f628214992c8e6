import { createInvoice, createSession, defineCases, HOUR, invoiceBody, MINUTE, sendInvoice, type Invoice, type Session } from './support.js'

/** Publishable keys may create 120 sessions a minute (spec, Limits). */
const PUBLISHABLE_PER_MINUTE = 120

export const idempotencyCases = defineCases([
  {
    id: 'idempotency/required-checkout',
    title: 'Creating a Checkout Session without Idempotency-Key is 400 invalid_request, and creates nothing',
    rules: ['idempotency.required', 'checkout-session-endpoints.create', 'errors.invalid-request'],
    async run(t) {
      t.expectError(await t.api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD', metadata: { probe: 'no-key' } }), 400, 'invalid_request')
      const newest = (t.ok(await t.api.get('/v1/checkout-sessions?limit=1', { record: 'shape' })).data as Session[])[0]
      t.check(newest?.metadata.probe !== 'no-key', 'the refused request created a session')
    },
  },
  {
    id: 'idempotency/required-invoices',
    title: 'Creating, sending and voiding an Invoice without Idempotency-Key is 400 invalid_request',
    rules: ['idempotency.required', 'invoice-endpoints.create', 'invoice-endpoints.send', 'invoice-endpoints.void'],
    needs: ['business'],
    async run(t) {
      t.expectError(await t.api.post('/v1/invoices', invoiceBody()), 400, 'invalid_request', 'create')
      const draft = await createInvoice(t)
      t.expectError(await t.api.post(`/v1/invoices/${draft.id}/send`), 400, 'invalid_request', 'send')
      const still = t.ok(await t.api.get(`/v1/invoices/${draft.id}`)) as Invoice
      t.check(still.status === 'draft', 'a send without Idempotency-Key sent the Invoice')
      await sendInvoice(t, draft.id)
      t.expectError(await t.api.post(`/v1/invoices/${draft.id}/void`), 400, 'invalid_request', 'void')
    },
  },
  {
    id: 'idempotency/empty-key',
    title: 'An empty Idempotency-Key is refused: the header has at least 1 character',
    rules: ['endpoints.idempotency-key-header'],
    async run(t) {
      t.expectError(await t.api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { idempotencyKey: '' }), 400, 'invalid_request')
    },
  },
  {
    id: 'idempotency/replay',
    title: 'Repeating a key answers 201 with the original session and makes no second one',
    rules: ['idempotency.replay', 'checkout-session-endpoints.create'],
    async run(t) {
      const key = t.newKey()
      const first = t.ok(await t.api.post('/v1/checkout-sessions', { amount: 1700, currency: 'FJD' }, { idempotencyKey: key }), 201) as Session
      const again = t.ok(await t.api.post('/v1/checkout-sessions', { amount: 1700, currency: 'FJD' }, { idempotencyKey: key }), 201) as Session
      t.check(again.id === first.id, 'the replay made another session')
      const list = t.ok(await t.api.get('/v1/checkout-sessions?limit=100', { record: 'shape' })).data as Session[]
      t.check(list.filter((session) => session.id === first.id).length === 1, 'the session is listed more than once')
      t.check(list[0]?.id === first.id, 'the replay is not the newest session: something else was created')
    },
  },
  {
    id: 'idempotency/replay-other-fields',
    title: 'A repeat with the same amount and currency but other metadata replays the original',
    rules: ['idempotency.replay', 'idempotency.reused'],
    async run(t) {
      const key = t.newKey()
      const first = t.ok(await t.api.post('/v1/checkout-sessions', { amount: 1800, currency: 'FJD', metadata: { try: '1' } }, { idempotencyKey: key }), 201) as Session
      const again = t.ok(await t.api.post('/v1/checkout-sessions', { amount: 1800, currency: 'FJD', metadata: { try: '2' } }, { idempotencyKey: key }), 201) as Session
      t.check(again.id === first.id && again.metadata.try === '1', 'the repeat did not answer the original session')
    },
  },
  {
    id: 'idempotency/reused-amount',
    title: 'A key reused with another amount is 409 idempotency_key_reused',
    rules: ['idempotency.reused', 'errors.idempotency-key-reused', 'checkout-session-endpoints.create-errors'],
    async run(t) {
      const key = t.newKey()
      t.ok(await t.api.post('/v1/checkout-sessions', { amount: 1900, currency: 'FJD' }, { idempotencyKey: key }), 201)
      t.expectError(await t.api.post('/v1/checkout-sessions', { amount: 1901, currency: 'FJD' }, { idempotencyKey: key }), 409, 'idempotency_key_reused')
    },
  },
  {
    id: 'idempotency/reused-quote',
    title: 'A key reused with a quote instead of an amount is 409 idempotency_key_reused',
    rules: ['idempotency.reused', 'errors.idempotency-key-reused'],
    needs: ['business'],
    async run(t) {
      const key = t.newKey()
      t.ok(await t.api.post('/v1/checkout-sessions', { amount: 2000, currency: 'FJD' }, { idempotencyKey: key }), 201)
      t.expectError(await t.api.post('/v1/checkout-sessions', { quote: { amount: 2000, currency: 'USD' } }, { idempotencyKey: key }), 409, 'idempotency_key_reused')
    },
  },
  {
    id: 'idempotency/window',
    title: 'A key replays for about 24 hours, then makes a new session',
    rules: ['idempotency.window', 'limits.idempotency-window'],
    needs: ['sim'],
    async run(t) {
      const key = t.newKey()
      const body = { amount: 2100, currency: 'FJD' }
      const first = t.ok(await t.api.post('/v1/checkout-sessions', body, { idempotencyKey: key }), 201) as Session
      await t.sim.advance(23 * HOUR)
      const replay = t.ok(await t.api.post('/v1/checkout-sessions', body, { idempotencyKey: key }), 201) as Session
      t.check(replay.id === first.id, 'the key did not replay 23 hours later')
      await t.sim.advance(2 * HOUR)
      const fresh = t.ok(await t.api.post('/v1/checkout-sessions', body, { idempotencyKey: key }), 201) as Session
      t.check(fresh.id !== first.id, 'the key still replayed 25 hours later')
    },
  },
  {
    id: 'idempotency/invoice-create',
    title: 'A repeated create key returns the original draft, whatever the body',
    rules: ['invoice-endpoints.create', 'idempotency.replay'],
    needs: ['business'],
    async run(t) {
      const key = t.newKey()
      const first = t.ok(await t.api.post('/v1/invoices', invoiceBody({ customerName: 'First' }), { idempotencyKey: key }), 201) as Invoice
      const again = t.ok(await t.api.post('/v1/invoices', invoiceBody({ customerName: 'Second' }), { idempotencyKey: key }), 201) as Invoice
      t.check(again.id === first.id && again.customerName === 'First', 'the repeated key made or changed a draft')
    },
  },
  {
    id: 'idempotency/invoice-create-refused-body',
    title: 'A repeated create key returns the original draft also for a body that alone would be refused',
    rules: ['invoice-endpoints.create', 'idempotency.replay'],
    needs: ['business'],
    async run(t) {
      const key = t.newKey()
      const first = t.ok(await t.api.post('/v1/invoices', invoiceBody({ customerName: 'First' }), { idempotencyKey: key }), 201) as Invoice
      // No dueDate and no items: the spec makes no exception to "a repeated key returns the original draft" (Invoices)
      // and "Repeating a key returns the original result" (Idempotency) for a body that fails validation.
      const again = t.ok(await t.api.post('/v1/invoices', { customerName: 'Second' }, { idempotencyKey: key }), 201) as Invoice
      t.check(again.id === first.id && again.customerName === 'First', 'the repeated key was answered for its body, not with the original draft')
    },
  },
  {
    id: 'idempotency/invoice-send',
    title: 'A retried send key returns the original result and uses no second number',
    rules: ['invoice-endpoints.send', 'idempotency.replay'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      const key = t.newKey()
      const sent = t.ok(await t.api.post(`/v1/invoices/${draft.id}/send`, undefined, { idempotencyKey: key })) as Invoice
      const again = t.ok(await t.api.post(`/v1/invoices/${draft.id}/send`, undefined, { idempotencyKey: key })) as Invoice
      t.check(again.number === sent.number && again.status === 'sent', `the retried send answered number ${again.number}, first ${sent.number}`)
      const next = await sendInvoice(t, (await createInvoice(t)).id)
      t.check(next.number !== sent.number, 'the next Invoice got the same number')
    },
  },
  {
    id: 'idempotency/invoice-void',
    title: 'A retried void key returns the original result',
    rules: ['invoice-endpoints.void', 'idempotency.replay'],
    needs: ['business'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      const key = t.newKey()
      const voided = t.ok(await t.api.post(`/v1/invoices/${sent.id}/void`, undefined, { idempotencyKey: key })) as Invoice
      const again = t.ok(await t.api.post(`/v1/invoices/${sent.id}/void`, undefined, { idempotencyKey: key })) as Invoice
      t.check(voided.status === 'void' && again.status === 'void' && again.number === sent.number, 'the retried void did not answer the void Invoice')
    },
  },
])

export const rateLimitCases = defineCases([
  {
    id: 'rate-limits/publishable',
    title: 'A publishable key creates 120 sessions a minute; the 121st is refused, and the next minute works again',
    rules: ['limits.rate-limit'],
    needs: ['sim', 'publishable-key'],
    async run(t) {
      const publishable = t.publishable
      // A fresh minute of the merchant's clock, so no earlier request counts.
      await t.sim.advance(MINUTE)
      for (let index = 0; index < PUBLISHABLE_PER_MINUTE; index++) {
        const answer = await publishable.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { idempotencyKey: t.newKey(), record: false })
        t.expectStatus(answer, 201, `request ${index + 1} of ${PUBLISHABLE_PER_MINUTE} in a minute`)
      }
      const over = await publishable.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { idempotencyKey: t.newKey() })
      t.check(over.status >= 400, `request ${PUBLISHABLE_PER_MINUTE + 1} in a minute answered ${over.status}, expected a refusal`)
      t.expectEnvelope(over)
      await t.sim.advance(MINUTE)
      await createSession(t, { amount: 100 }, publishable)
    },
  },
  {
    id: 'rate-limits/secret',
    title: 'A secret key is not held to the publishable key\'s 120 a minute',
    rules: ['limits.rate-limit'],
    async run(t) {
      for (let index = 0; index <= PUBLISHABLE_PER_MINUTE; index++) {
        const answer = await t.api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { idempotencyKey: t.newKey(), record: false })
        t.expectStatus(answer, 201, `request ${index + 1} in a minute with a secret key`)
      }
      await createSession(t, { amount: 100 })
    },
  },
])
