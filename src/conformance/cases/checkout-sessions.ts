import type { CaseContext } from '../context.js'
import {
  createSession,
  defineCases,
  expectInvalid,
  holds,
  HOUR,
  MAX_AMOUNT,
  MINUTE,
  openPage,
  targetNow,
  tryCreateSession,
  type Session,
} from './support.js'

const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled']

/** The CheckoutSession table's required fields and types. */
function checkSessionFields(t: CaseContext, session: Session, where: string): void {
  const problems: string[] = []
  if (typeof session.id !== 'string' || session.id === '') problems.push('id is not a string')
  if (!STATUSES.includes(session.status)) problems.push(`status ${JSON.stringify(session.status)}`)
  if (session.mode !== 'test' && session.mode !== 'live') problems.push(`mode ${JSON.stringify(session.mode)}`)
  if (!Number.isInteger(session.amount)) problems.push('amount is not an integer')
  if (session.currency !== 'FJD') problems.push(`currency ${JSON.stringify(session.currency)}`)
  if (typeof session.hostedUrl !== 'string' || !/^https?:\/\//.test(session.hostedUrl)) problems.push('hostedUrl is not an address')
  if (session.metadata === null || typeof session.metadata !== 'object' || Array.isArray(session.metadata)) problems.push('metadata is not an object')
  if (!Number.isInteger(session.expiresAt)) problems.push('expiresAt is not integer Unix ms')
  if (problems.length > 0) t.fail(`${where}: ${problems.join('; ')}`)
}

/** Cents of `currency` converted at `rate` (FJD per unit), to the nearest cent. */
const convert = (amount: number, rate: string): number => amount * Number(rate)

export const checkoutSessionCases = defineCases([
  {
    id: 'checkout-sessions/create',
    title: 'POST /v1/checkout-sessions answers 201 with a pending session of the documented fields',
    rules: [
      'checkout-session.fields',
      'checkout-session.metadata-empty',
      'checkout-session.invoice-number',
      'checkout-session.quote',
      'session-states.created-pending',
      'checkout-session-endpoints.create',
      'service.checkout-flow',
      'intro.json-bodies',
      'intro.timestamps-ms',
      'intro.money-cents',
    ],
    async run(t) {
      const answer = await t.api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { idempotencyKey: t.newKey() })
      const session = t.ok(answer, 201) as Session
      t.check((answer.headers.get('content-type') ?? '').startsWith('application/json'), 'the answer is not application/json')
      checkSessionFields(t, session, 'the created session')
      t.check(session.status === 'pending', `a new session is ${session.status}, expected pending`)
      t.check(session.amount === 1500, `amount ${session.amount}, expected 1500`)
      t.check(Object.keys(session.metadata).length === 0, 'metadata is not an empty object when none was set')
      t.check(!('invoiceNumber' in session), 'invoiceNumber is present on a session that pays no Invoice')
      t.check(!('quote' in session), 'quote is present on a session made without one')
      t.check(session.expiresAt > 1_000_000_000_000, `expiresAt ${session.expiresAt} is not in Unix milliseconds`)
    },
  },
  {
    id: 'checkout-sessions/retrieve',
    title: 'GET /v1/checkout-sessions/{id} answers the session as created',
    rules: ['checkout-session-endpoints.get', 'service.checkout-flow', 'checkout-session.fields'],
    async run(t) {
      const created = await createSession(t, { metadata: { order: 'A-1001' } })
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${created.id}`)) as Session
      checkSessionFields(t, read, 'the retrieved session')
      for (const field of ['id', 'status', 'mode', 'amount', 'currency', 'hostedUrl', 'expiresAt'] as const) {
        t.check(read[field] === created[field], `retrieve answers ${field} ${JSON.stringify(read[field])}, create answered ${JSON.stringify(created[field])}`)
      }
      t.check(read.metadata.order === 'A-1001', 'metadata is not returned on retrieve')
    },
  },
  {
    id: 'checkout-sessions/not-found',
    title: 'An unknown session id is 404 with the error envelope, on retrieve and cancel',
    rules: ['checkout-session-endpoints.get', 'checkout-session-endpoints.cancel', 'errors.not-found'],
    async run(t) {
      for (const answer of [await t.api.get('/v1/checkout-sessions/cs_conformance_missing'), await t.api.post('/v1/checkout-sessions/cs_conformance_missing/cancel')]) {
        t.expectStatus(answer, 404)
        t.expectEnvelope(answer)
      }
    },
  },
  {
    id: 'checkout-sessions/amount-max',
    title: 'An amount of 499999 cents is taken; 500000 (FJD 5,000.00) is 400 invalid_request',
    rules: ['limits.checkout-amount', 'checkout-session-endpoints.create-errors', 'errors.invalid-request'],
    async run(t) {
      const session = await createSession(t, { amount: MAX_AMOUNT })
      t.check(session.amount === MAX_AMOUNT, `amount ${session.amount}, expected ${MAX_AMOUNT}`)
      expectInvalid(t, [['amount 500000', await tryCreateSession(t, { amount: MAX_AMOUNT + 1, currency: 'FJD' })]])
    },
  },
  {
    id: 'checkout-sessions/amount-cents',
    title: 'An amount that is not whole cents is 400 invalid_request',
    rules: ['intro.money-cents', 'errors.invalid-request'],
    async run(t) {
      expectInvalid(t, [
        ['amount 15.5', await tryCreateSession(t, { amount: 15.5, currency: 'FJD' })],
        ['amount "1500"', await tryCreateSession(t, { amount: '1500', currency: 'FJD' })],
      ])
    },
  },
  {
    id: 'checkout-sessions/currency-with-amount',
    title: 'currency is required with amount, and is FJD only',
    rules: ['create-checkout-session.currency-with-amount', 'versioning.v1-prefix'],
    async run(t) {
      expectInvalid(t, [
        ['amount without currency', await tryCreateSession(t, { amount: 1500 })],
        ['currency USD', await tryCreateSession(t, { amount: 1500, currency: 'USD' })],
        ['neither amount nor quote', await tryCreateSession(t, {})],
      ])
    },
  },
  {
    id: 'checkout-sessions/amount-or-quote',
    title: 'amount with currency and quote together is 400 invalid_request',
    rules: ['create-checkout-session.amount-or-quote'],
    needs: ['business'],
    async run(t) {
      expectInvalid(t, [['amount, currency and quote', await tryCreateSession(t, { amount: 1500, currency: 'FJD', quote: { amount: 1000, currency: 'USD' } })]])
    },
  },
  {
    id: 'checkout-sessions/redirect-urls-https',
    title: 'successUrl and cancelUrl must be HTTPS',
    rules: ['create-checkout-session.success-url', 'create-checkout-session.cancel-url', 'limits.redirect-urls'],
    async run(t) {
      const session = await createSession(t, { successUrl: 'https://shop.example/thanks', cancelUrl: 'https://shop.example/cart' })
      t.check(session.status === 'pending', 'a session with HTTPS redirect URLs was not created')
      expectInvalid(t, [
        ['successUrl http://', await tryCreateSession(t, { amount: 1500, currency: 'FJD', successUrl: 'http://shop.example/thanks' })],
        ['cancelUrl http://', await tryCreateSession(t, { amount: 1500, currency: 'FJD', cancelUrl: 'http://shop.example/cart' })],
        ['successUrl not a URI', await tryCreateSession(t, { amount: 1500, currency: 'FJD', successUrl: 'thanks' })],
      ])
    },
  },
  {
    id: 'checkout-sessions/redirect-urls-length',
    title: 'successUrl and cancelUrl take 2048 characters, not 2049',
    rules: ['create-checkout-session.success-url', 'create-checkout-session.cancel-url', 'limits.redirect-urls'],
    async run(t) {
      const url = (length: number) => {
        const base = 'https://shop.example/r?'
        return base + 'x'.repeat(length - base.length)
      }
      await createSession(t, { successUrl: url(2048), cancelUrl: url(2048) })
      expectInvalid(t, [
        ['successUrl of 2049 chars', await tryCreateSession(t, { amount: 1500, currency: 'FJD', successUrl: url(2049) })],
        ['cancelUrl of 2049 chars', await tryCreateSession(t, { amount: 1500, currency: 'FJD', cancelUrl: url(2049) })],
      ])
    },
  },
  {
    id: 'checkout-sessions/success-redirect',
    title: 'After paying on the hosted page the customer goes to successUrl with session_id; after a decline or Cancel, to cancelUrl',
    rules: ['create-checkout-session.success-url', 'create-checkout-session.cancel-url', 'service.checkout-flow'],
    needs: ['sim'],
    async run(t) {
      const urls = { successUrl: 'https://shop.example/thanks?order=7', cancelUrl: 'https://shop.example/cart' }
      const paid = await createSession(t, urls)
      const success = await openPage(t, paid.hostedUrl, { method: 'POST', form: { provider: 'card', outcome: 'succeeded' } })
      t.check(success.location === `${urls.successUrl}&session_id=${paid.id}`, `the hosted page sent the customer to ${success.location}, expected successUrl with session_id`)
      const declined = await createSession(t, urls)
      const failure = await openPage(t, declined.hostedUrl, { method: 'POST', form: { provider: 'card', outcome: 'failed' } })
      t.check(failure.location === `${urls.cancelUrl}?session_id=${declined.id}`, `a declined payment sent the customer to ${failure.location}, expected cancelUrl with session_id`)
      const left = await createSession(t, urls)
      const cancel = await openPage(t, `${left.hostedUrl}/cancel`)
      t.check(cancel.location === `${urls.cancelUrl}?session_id=${left.id}`, `the page's Cancel sent the customer to ${cancel.location}, expected cancelUrl with session_id`)
    },
  },
  {
    id: 'checkout-sessions/metadata',
    title: 'metadata is returned on create and retrieve',
    rules: ['create-checkout-session.metadata'],
    async run(t) {
      const metadata = { orderId: 'ord_1001', 'customer ref': 'Mere & Co' }
      const session = await createSession(t, { metadata })
      t.check(JSON.stringify(session.metadata) === JSON.stringify(metadata), `create answered metadata ${JSON.stringify(session.metadata)}`)
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(JSON.stringify(read.metadata) === JSON.stringify(metadata), `retrieve answered metadata ${JSON.stringify(read.metadata)}`)
    },
  },
  {
    id: 'checkout-sessions/metadata-limits',
    title: 'metadata takes 20 pairs, 40-character keys and 500-character values, and no more',
    rules: ['limits.metadata', 'create-checkout-session.metadata'],
    async run(t) {
      const pairs = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']))
      await createSession(t, { metadata: pairs(20) })
      await createSession(t, { metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } })
      expectInvalid(t, [
        ['21 pairs', await tryCreateSession(t, { amount: 1500, currency: 'FJD', metadata: pairs(21) })],
        ['a 41-character key', await tryCreateSession(t, { amount: 1500, currency: 'FJD', metadata: { ['k'.repeat(41)]: 'v' } })],
        ['a 501-character value', await tryCreateSession(t, { amount: 1500, currency: 'FJD', metadata: { k: 'v'.repeat(501) } })],
        ['a number as value', await tryCreateSession(t, { amount: 1500, currency: 'FJD', metadata: { k: 1 } })],
      ])
    },
  },
  {
    id: 'checkout-sessions/not-shown-to-customer',
    title: 'The hosted page shows neither metadata nor the customer\'s e-mail',
    rules: ['create-checkout-session.metadata', 'create-checkout-session.customer-email'],
    async run(t) {
      const session = await createSession(t, { metadata: { secretNote: 'conformance-metadata-7f3a' }, customerEmail: 'conformance-7f3a@example.com' })
      const page = await openPage(t, session.hostedUrl)
      t.check(page.status === 200, `the hosted page answered ${page.status}`)
      t.check(!holds(page.text, 'conformance-metadata-7f3a'), 'the hosted page shows the metadata')
      t.check(!holds(page.text, 'conformance-7f3a@example.com'), 'the hosted page shows the customer e-mail')
    },
  },
  {
    id: 'checkout-sessions/customer-email',
    title: 'customerEmail is validated (e-mail, 254 characters) and never returned',
    rules: ['create-checkout-session.customer-email', 'limits.customer-email'],
    async run(t) {
      const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.fj`
      t.check(email.length === 254, 'the test address is not 254 characters')
      const session = await createSession(t, { customerEmail: email })
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      for (const [where, body] of [['create', session], ['retrieve', read]] as const) {
        t.check(!JSON.stringify(body).includes(email), `${where} returned the customer e-mail`)
      }
      expectInvalid(t, [
        ['not an e-mail', await tryCreateSession(t, { amount: 1500, currency: 'FJD', customerEmail: 'not-an-email' })],
        ['255 characters', await tryCreateSession(t, { amount: 1500, currency: 'FJD', customerEmail: `a${email}` })],
      ])
    },
  },
  {
    id: 'checkout-sessions/no-receipt-in-test',
    title: 'A test payment with customerEmail sends no receipt',
    rules: ['create-checkout-session.receipts', 'create-checkout-session.customer-email'],
    needs: ['sim'],
    async run(t) {
      const session = await createSession(t, { customerEmail: 'mere@example.fj' })
      await t.sim.pay(session.id, 'succeeded')
      t.check((await t.sim.emails()).length === 0, 'a test payment sent the customer a receipt')
    },
  },
  {
    id: 'checkout-sessions/receipt-live',
    title: 'A live payment e-mails a receipt in the display name, unless receipts are off',
    rules: ['create-checkout-session.receipts'],
    needs: ['live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      const liveApi = t.as(live.secret, 'live secret')
      await t.sim.settings({ displayName: 'Conformance Kava Bar' })
      const paid = await createSession(t, { customerEmail: 'mere@example.fj' }, liveApi)
      await t.sim.pay(paid.id, 'succeeded', live.secret)
      const receipts = await t.sim.emails(live.secret)
      t.check(receipts.length === 1 && receipts[0]!.to === 'mere@example.fj', `the live payment sent ${receipts.length} e-mails`)
      t.check(`${receipts[0]!.subject} ${receipts[0]!.text}`.includes('Conformance Kava Bar'), 'the receipt does not carry the display name')
      await t.sim.settings({ receiptsEnabled: false }, live.secret)
      const quiet = await createSession(t, { customerEmail: 'mere@example.fj' }, liveApi)
      await t.sim.pay(quiet.id, 'succeeded', live.secret)
      t.check((await t.sim.emails(live.secret)).length === 1, 'a receipt was sent with receipts off')
    },
  },
  {
    id: 'checkout-sessions/expires-at-default',
    title: 'expiresAt defaults to 24 hours from now',
    rules: ['create-checkout-session.expires-at', 'limits.expires-at'],
    async run(t) {
      const before = await targetNow(t)
      const session = await createSession(t)
      const after = await targetNow(t)
      // A minute either way for the clocks of this machine and the target.
      t.check(
        session.expiresAt >= before + 24 * HOUR - MINUTE && session.expiresAt <= after + 24 * HOUR + MINUTE,
        `expiresAt is ${((session.expiresAt - before) / HOUR).toFixed(3)} hours after creation, expected 24`,
      )
    },
  },
  {
    id: 'checkout-sessions/expires-at-window',
    title: 'expiresAt takes 30 minutes to 24 hours from now, nothing outside',
    rules: ['create-checkout-session.expires-at', 'limits.expires-at'],
    async run(t) {
      const now = await targetNow(t)
      const soon = await createSession(t, { expiresAt: now + 31 * MINUTE })
      t.check(soon.expiresAt === now + 31 * MINUTE, 'expiresAt is not the value sent')
      await createSession(t, { expiresAt: now + 24 * HOUR - MINUTE })
      expectInvalid(t, [
        ['29 minutes from now', await tryCreateSession(t, { amount: 1500, currency: 'FJD', expiresAt: now + 29 * MINUTE })],
        ['24 hours 1 minute from now', await tryCreateSession(t, { amount: 1500, currency: 'FJD', expiresAt: now + 24 * HOUR + MINUTE })],
        ['an hour ago', await tryCreateSession(t, { amount: 1500, currency: 'FJD', expiresAt: now - HOUR })],
      ])
    },
  },
  {
    id: 'checkout-sessions/expiry',
    title: 'A pending session is cancelled once time passes expiresAt',
    rules: ['session-states.expiry', 'checkout-session.expires-at'],
    needs: ['sim'],
    async run(t) {
      const now = await t.sim.now()
      const session = await createSession(t, { expiresAt: now + 45 * MINUTE })
      await t.sim.advance(44 * MINUTE)
      const before = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(before.status === 'pending', `the session is ${before.status} a minute before expiresAt`)
      await t.sim.advance(2 * MINUTE)
      const after = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(after.status === 'cancelled', `the session is ${after.status} after expiresAt, expected cancelled`)
    },
  },
  {
    id: 'checkout-sessions/cancel',
    title: 'Cancel answers 200 with the session cancelled, and it stays cancelled',
    rules: ['session-states.cancel', 'checkout-session-endpoints.cancel'],
    async run(t) {
      const session = await createSession(t)
      const cancelled = t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`)) as Session
      t.check(cancelled.id === session.id && cancelled.status === 'cancelled', `cancel answered status ${cancelled.status}`)
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(read.status === 'cancelled', `the session reads ${read.status} after cancel`)
    },
  },
  {
    id: 'checkout-sessions/cancel-twice',
    title: 'A second cancel is 409 invalid_state',
    rules: ['session-states.cancel-not-pending', 'checkout-session-endpoints.cancel', 'errors.invalid-state'],
    async run(t) {
      const session = await createSession(t)
      t.ok(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`))
      t.expectError(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`), 409, 'invalid_state')
    },
  },
  {
    id: 'checkout-sessions/pay-succeeds',
    title: 'A successful payment makes the session succeeded, which no cancel changes',
    rules: ['session-states.pay-succeeds', 'session-states.created-pending', 'session-states.cancel-not-pending', 'errors.invalid-state'],
    needs: ['sim'],
    async run(t) {
      const session = await createSession(t)
      await t.sim.pay(session.id, 'succeeded')
      const paid = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(paid.status === 'succeeded', `the session is ${paid.status} after a successful payment`)
      t.expectError(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`), 409, 'invalid_state')
      const still = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(still.status === 'succeeded', `the refused cancel left the session ${still.status}`)
    },
  },
  {
    id: 'checkout-sessions/pay-fails',
    title: 'A declined payment makes the session failed, which is final',
    rules: ['session-states.pay-fails', 'session-states.created-pending', 'session-states.cancel-not-pending'],
    needs: ['sim'],
    async run(t) {
      const session = await createSession(t)
      await t.sim.pay(session.id, 'failed')
      const failed = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(failed.status === 'failed', `the session is ${failed.status} after a declined payment`)
      t.expectError(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`), 409, 'invalid_state')
    },
  },
  {
    id: 'checkout-sessions/cancel-paying',
    title: 'Cancel once the customer has started paying is 409 payment_in_progress',
    rules: ['session-states.cancel-paying', 'checkout-session-endpoints.cancel', 'errors.payment-in-progress'],
    needs: ['sim'],
    async run(t) {
      const session = await createSession(t)
      await t.sim.pay(session.id, 'processing')
      t.expectError(await t.api.post(`/v1/checkout-sessions/${session.id}/cancel`), 409, 'payment_in_progress')
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(read.status === 'pending', `the session is ${read.status} while the payment processes, expected pending`)
    },
  },
  {
    id: 'checkout-sessions/list-newest-first',
    title: 'The list is newest first',
    rules: ['lists.checkout-sessions', 'checkout-session-endpoints.list'],
    async run(t) {
      const made = [await createSession(t), await createSession(t), await createSession(t)]
      const list = t.ok(await t.api.get('/v1/checkout-sessions?limit=100', { record: 'shape' }))
      t.check(Array.isArray(list.data) && (list.nextCursor === null || typeof list.nextCursor === 'string'), 'the list is not {data, nextCursor}')
      const order = (list.data as Session[]).map((session) => session.id).filter((id) => made.some((session) => session.id === id))
      t.check(JSON.stringify(order) === JSON.stringify(made.map((session) => session.id).reverse()), 'the sessions are not newest first')
    },
  },
  {
    id: 'checkout-sessions/list-cursor',
    title: 'nextCursor pages to older sessions and is null on the last page',
    rules: ['lists.checkout-sessions', 'checkout-session-endpoints.list'],
    async run(t) {
      const made = [await createSession(t), await createSession(t), await createSession(t)]
      const first = t.ok(await t.api.get('/v1/checkout-sessions?limit=2'))
      t.check(first.data.length === 2 && typeof first.nextCursor === 'string', 'a first page of 2 has no nextCursor')
      t.check(first.data[0].id === made[2]!.id && first.data[1].id === made[1]!.id, 'the first page is not the two newest sessions')
      const second = t.ok(await t.api.get(`/v1/checkout-sessions?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, { record: t.target.sim ? 'full' : 'shape' }))
      t.check(second.data[0]?.id === made[0]!.id, 'the page after the cursor does not start with the next older session')
      let cursor: string | null = second.nextCursor
      for (let pages = 0; cursor !== null; pages++) {
        t.check(pages < 100, 'no last page within 100 pages of 100')
        cursor = t.ok(await t.api.get(`/v1/checkout-sessions?limit=100&cursor=${encodeURIComponent(cursor)}`, { record: false })).nextCursor
      }
    },
  },
  {
    id: 'checkout-sessions/list-status',
    title: 'The status filter lists only sessions of that status',
    rules: ['checkout-session-endpoints.list'],
    async run(t) {
      const pending = await createSession(t)
      const cancelled = await createSession(t)
      t.ok(await t.api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`))
      for (const [status, wanted, unwanted] of [['cancelled', cancelled, pending], ['pending', pending, cancelled]] as const) {
        const list = t.ok(await t.api.get(`/v1/checkout-sessions?status=${status}&limit=100`, { record: 'shape' })).data as Session[]
        t.check(list.every((session) => session.status === status), `status=${status} lists another status`)
        t.check(list.some((session) => session.id === wanted.id), `status=${status} leaves out a ${status} session`)
        t.check(!list.some((session) => session.id === unwanted.id), `status=${status} lists a session of another status`)
      }
    },
  },
  {
    id: 'checkout-sessions/list-from-to',
    title: 'from and to bound the list by creation time',
    rules: ['checkout-session-endpoints.list'],
    needs: ['sim'],
    async run(t) {
      const start = await t.sim.now()
      const early = await createSession(t)
      await t.sim.advance(HOUR)
      const middle = await t.sim.now()
      await t.sim.advance(HOUR)
      const late = await createSession(t)
      const ids = async (query: string) => (t.ok(await t.api.get(`/v1/checkout-sessions?${query}`)).data as Session[]).map((session) => session.id)
      const until = await ids(`to=${middle}`)
      t.check(until.includes(early.id) && !until.includes(late.id), 'to= does not bound the list by creation time')
      const since = await ids(`from=${middle}`)
      t.check(since.includes(late.id) && !since.includes(early.id), 'from= does not bound the list by creation time')
      const both = await ids(`from=${start}&to=${middle}`)
      t.check(both.length === 1 && both[0] === early.id, 'from= and to= together do not bound the list')
      // The bounds are inclusive: the simulator says when a session was made (createdAt, an additive field).
      const createdAt = t.present(early.createdAt as number | undefined, 'the session has no createdAt to bound by')
      t.check((await ids(`from=${createdAt}&to=${createdAt}`)).includes(early.id), 'from= and to= equal to the creation time leave the session out')
    },
  },
  {
    id: 'checkout-sessions/list-bad-query',
    title: 'A bad cursor, status, from, to or limit is 400 invalid_request',
    rules: ['checkout-session-endpoints.list-errors', 'limits.list-limit', 'errors.invalid-request'],
    async run(t) {
      expectInvalid(t, [
        ['cursor', await t.api.get('/v1/checkout-sessions?cursor=not-a-cursor')],
        ['status', await t.api.get('/v1/checkout-sessions?status=paid')],
        ['from', await t.api.get('/v1/checkout-sessions?from=yesterday')],
        ['to', await t.api.get('/v1/checkout-sessions?to=tomorrow')],
        ['limit 0', await t.api.get('/v1/checkout-sessions?limit=0')],
        ['limit 101', await t.api.get('/v1/checkout-sessions?limit=101')],
      ])
    },
  },
  {
    id: 'checkout-sessions/list-limit',
    title: 'The list gives 10 sessions by default, up to 100 on request',
    rules: ['limits.list-limit', 'checkout-session-endpoints.list'],
    async run(t) {
      for (let index = 0; index < 11; index++) await createSession(t)
      const page = t.ok(await t.api.get('/v1/checkout-sessions', { record: 'shape' }))
      t.check(page.data.length === 10, `the default page holds ${page.data.length} sessions, expected 10`)
      const wide = t.ok(await t.api.get('/v1/checkout-sessions?limit=100', { record: 'shape' }))
      t.check(wide.data.length >= 11 && wide.data.length <= 100, `limit=100 gave ${wide.data.length} sessions`)
    },
  },
  {
    id: 'checkout-sessions/quote',
    title: 'A quote is converted to FJD at its rate, which the session shows',
    rules: ['create-checkout-session.quote-locked', 'checkout-session-quote.fields', 'checkout-session.amount-converted', 'checkout-session.quote'],
    needs: ['business'],
    async run(t) {
      const session = await createSession(t, { quote: { amount: 10_000, currency: 'USD' } })
      const quote = t.present(session.quote, 'a session made with a quote has no quote')
      t.check(quote.amount === 10_000 && quote.currency === 'USD', `quote is ${JSON.stringify(quote)}, expected amount 10000 USD`)
      t.check(typeof quote.rate === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(quote.rate), `rate ${JSON.stringify(quote.rate)} is not a decimal string`)
      t.check(Number.isInteger(quote.asOf), 'asOf is not integer Unix ms')
      t.check(session.currency === 'FJD', `the session's currency is ${session.currency}`)
      t.check(Math.abs(session.amount - convert(10_000, quote.rate)) <= 0.5, `amount ${session.amount} is not 10000 USD cents at ${quote.rate}`)
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(JSON.stringify(read.quote) === JSON.stringify(quote), 'retrieve answers another quote')
    },
  },
  {
    id: 'checkout-sessions/quote-locked',
    title: 'A new rate does not change a session\'s quote, only later ones',
    rules: ['create-checkout-session.quote-locked'],
    needs: ['sim', 'business'],
    async run(t) {
      await t.sim.rates({ AUD: '1.5000' })
      const session = await createSession(t, { quote: { amount: 20_000, currency: 'AUD' } })
      await t.sim.rates({ AUD: '1.6000' })
      const read = t.ok(await t.api.get(`/v1/checkout-sessions/${session.id}`)) as Session
      t.check(read.quote?.rate === session.quote?.rate && read.amount === session.amount, 'the session\'s rate or amount moved with the rate table')
      const later = await createSession(t, { quote: { amount: 20_000, currency: 'AUD' } })
      t.check(later.amount === 32_000, `a later session converted 20000 AUD cents to ${later.amount} at 1.6`)
    },
  },
  {
    id: 'checkout-sessions/quote-max',
    title: 'A quote converting to FJD 5,000.00 or more is 400 invalid_request',
    rules: ['limits.checkout-amount', 'checkout-session-endpoints.create-errors', 'errors.invalid-request'],
    needs: ['business'],
    async run(t) {
      const probe = await createSession(t, { quote: { amount: 100, currency: 'USD' } })
      const rate = Number(probe.quote?.rate)
      t.check(rate > 0, 'the probe session has no rate')
      const under = Math.floor((MAX_AMOUNT - 1) / rate)
      const session = await createSession(t, { quote: { amount: under, currency: 'USD' } })
      t.check(session.amount <= MAX_AMOUNT, `a quote converting under the cap became ${session.amount}`)
      expectInvalid(t, [['a quote converting to over 499999', await tryCreateSession(t, { quote: { amount: Math.ceil(500_001 / rate), currency: 'USD' } })]])
    },
  },
  {
    id: 'checkout-sessions/quote-not-shown',
    title: 'The hosted page of a quoted session shows FJD only',
    rules: ['checkout-session-quote.not-shown-to-customer'],
    needs: ['business'],
    async run(t) {
      const session = await createSession(t, { quote: { amount: 12_345, currency: 'AUD' } })
      const page = await openPage(t, session.hostedUrl)
      t.check(page.status === 200, `the hosted page answered ${page.status}`)
      for (const needle of ['AUD', '123.45', session.quote!.rate]) t.check(!holds(page.text, needle), `the hosted page shows the quote (${needle})`)
    },
  },
  {
    id: 'checkout-sessions/quote-live',
    title: 'A quote with a live key is 409 quote_unavailable_in_live_mode',
    rules: ['create-checkout-session.quote-test-business', 'errors.quote-live', 'checkout-session-endpoints.create-errors'],
    needs: ['live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      t.expectError(await tryCreateSession(t, { quote: { amount: 1000, currency: 'USD' } }, t.as(live.secret, 'live secret')), 409, 'quote_unavailable_in_live_mode')
    },
  },
  {
    id: 'checkout-sessions/live-mode-unavailable',
    title: 'A live key while no Provider takes live payments is 409 live_mode_unavailable',
    rules: ['errors.live-mode-unavailable', 'checkout-session-endpoints.create-errors'],
    needs: ['live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      await t.sim.settings({ liveProviders: false }, live.secret)
      t.expectError(await tryCreateSession(t, { amount: 1500, currency: 'FJD' }, t.as(live.secret, 'live secret')), 409, 'live_mode_unavailable')
    },
  },
  {
    id: 'checkout-sessions/amount-max-live',
    title: 'The amount cap holds in live mode too',
    rules: ['limits.checkout-amount'],
    needs: ['live'],
    async run(t) {
      const live = t.as((await t.sim.unlockLive()).secret, 'live secret')
      await createSession(t, { amount: MAX_AMOUNT }, live)
      expectInvalid(t, [['a live amount of 500000', await tryCreateSession(t, { amount: MAX_AMOUNT + 1, currency: 'FJD' }, live)]])
    },
  },
])
