import { createInvoice, createSession, defineCases, type Session } from './support.js'

const SCHEDULES = ['daily', 'weekly', 'fortnightly', 'monthly', 'manual']

export const modesAndMerchantsCases = defineCases([
  {
    id: 'merchants/me',
    title: 'GET /v1/merchants/me answers tier, mode, balance and payoutSchedule',
    rules: ['merchant.fields', 'service.merchant-me', 'merchant-payout-endpoints.me', 'intro.money-cents'],
    async run(t) {
      const me = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(me.tier === 'business' || me.tier === 'individual', `tier is ${JSON.stringify(me.tier)}`)
      t.check(me.mode === 'test', `mode is ${JSON.stringify(me.mode)}, expected "test" for a test key`)
      t.check(Number.isInteger(me.balance) && me.balance >= 0, `balance is ${JSON.stringify(me.balance)}, expected whole FJD cents`)
      t.check(SCHEDULES.includes(me.payoutSchedule), `payoutSchedule is ${JSON.stringify(me.payoutSchedule)}`)
    },
  },
  {
    id: 'merchants/default-schedule',
    title: 'A new merchant\'s payout schedule is weekly',
    rules: ['merchant.payout-schedule'],
    needs: ['sim'],
    async run(t) {
      const me = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(me.payoutSchedule === 'weekly', `a new merchant's payoutSchedule is ${JSON.stringify(me.payoutSchedule)}, expected "weekly"`)
    },
  },
  {
    id: 'merchants/balance',
    title: 'The balance grows by a succeeded payment, in the key\'s mode only',
    rules: ['merchant.fields', 'service.merchant-me'],
    needs: ['sim', 'live'],
    async run(t) {
      const before = t.ok(await t.api.get('/v1/merchants/me')).balance as number
      const session = await createSession(t, { amount: 2300 })
      await t.sim.pay(session.id, 'succeeded')
      const after = t.ok(await t.api.get('/v1/merchants/me')).balance as number
      t.check(after === before + 2300, `the test balance went from ${before} to ${after} after a 2300 payment`)
      const live = await t.sim.unlockLive()
      const liveMe = t.ok(await t.as(live.secret, 'live secret').get('/v1/merchants/me'))
      t.check(liveMe.mode === 'live' && liveMe.balance === 0, `the live balance is ${liveMe.balance} (mode ${liveMe.mode}) after a test payment, expected 0 in live`)
    },
  },
  {
    id: 'merchants/signup-test-key',
    title: 'Signup with an e-mail and a name issues a test key that works at once',
    rules: ['service.signup-test-key'],
    needs: ['sim'],
    async run(t) {
      const signup = t.ok(await t.anonymous.post('/_sim/merchants', { email: 'conformance@example.com', name: 'Conformance Signup', tier: 'individual' }), 201)
      t.check(typeof signup.keys?.secret === 'string' && signup.keys.secret.startsWith('sk_test_'), 'signup answered no sk_test_ key')
      const me = t.ok(await t.as(signup.keys.secret, 'new secret').get('/v1/merchants/me'))
      t.check(me.mode === 'test' && me.tier === 'individual', `the new key's merchant is ${me.tier} in ${me.mode} mode`)
    },
  },
  {
    id: 'modes/live-after-verification',
    title: 'Live keys exist only after verification is approved, and make live objects',
    rules: ['service.live-after-verification', 'authentication.key-types', 'authentication.key-mode', 'checkout-session.mode'],
    needs: ['sim', 'live'],
    async run(t) {
      const early = await t.api.post('/api-keys', { type: 'secret', mode: 'live' })
      t.check(early.status >= 400, `a live key was issued before verification (${early.status})`)
      const live = await t.sim.unlockLive()
      t.check(live.secret.startsWith('sk_live_') && live.publishable.startsWith('pk_live_'), 'the live keys are not sk_live_ / pk_live_')
      const liveApi = t.as(live.secret, 'live secret')
      const me = t.ok(await liveApi.get('/v1/merchants/me'))
      t.check(me.mode === 'live', `merchants/me with sk_live_ has mode ${JSON.stringify(me.mode)}`)
      const session = await createSession(t, {}, liveApi)
      t.check(session.mode === 'live', `a session made with sk_live_ has mode ${JSON.stringify(session.mode)}`)
    },
  },
  {
    id: 'modes/other-mode-404',
    title: 'An object of the other mode is 404, and lists hold only the key\'s mode',
    rules: ['service.modes-isolated', 'authentication.key-mode', 'errors.not-found'],
    needs: ['sim', 'live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      const liveApi = t.as(live.secret, 'live secret')
      const testSession = await createSession(t)
      const liveSession = await createSession(t, {}, liveApi)
      t.expectStatus(await liveApi.get(`/v1/checkout-sessions/${testSession.id}`), 404)
      t.expectStatus(await t.api.get(`/v1/checkout-sessions/${liveSession.id}`), 404)
      t.expectStatus(await t.api.post(`/v1/checkout-sessions/${liveSession.id}/cancel`), 404)
      const testList = t.ok(await t.api.get('/v1/checkout-sessions?limit=100')).data as Session[]
      t.check(!testList.some((session) => session.id === liveSession.id), 'the test list holds a live session')
      const liveList = t.ok(await liveApi.get('/v1/checkout-sessions?limit=100')).data as Session[]
      t.check(!liveList.some((session) => session.id === testSession.id), 'the live list holds a test session')
    },
  },
  {
    id: 'modes/other-merchant-404',
    title: 'Another merchant\'s objects are 404, on reads and on changes',
    rules: ['service.modes-isolated', 'errors.not-found'],
    needs: ['sim'],
    async run(t) {
      const other = await t.otherMerchant('business')
      const otherApi = t.as(other.secret, 'other merchant')
      const theirs = await createSession(t, {}, otherApi)
      t.expectStatus(await t.api.get(`/v1/checkout-sessions/${theirs.id}`), 404)
      t.expectStatus(await t.api.post(`/v1/checkout-sessions/${theirs.id}/cancel`), 404)
      const invoice = t.ok(await otherApi.post('/v1/invoices', { customerName: 'Theirs', dueDate: '2030-01-31', items: [{ description: 'x', quantity: 1, unitPrice: 100 }] }, { idempotencyKey: t.newKey() }), 201)
      t.expectStatus(await t.api.get(`/v1/invoices/${invoice.id}`), 404)
      t.expectStatus(await t.api.post(`/v1/invoices/${invoice.id}/send`, undefined, { idempotencyKey: t.newKey() }), 404)
      const mine = await createInvoice(t)
      t.expectStatus(await otherApi.get(`/v1/invoices/${mine.id}`), 404)
      const still = t.ok(await otherApi.get(`/v1/checkout-sessions/${theirs.id}`)) as Session
      t.check(still.status === 'pending', 'another merchant\'s cancel reached the session')
    },
  },
])
