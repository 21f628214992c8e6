import type { CaseContext } from '../context.js'
import type { ConformanceClient } from '../http.js'
import { createSession, DAY, defineCases, HOUR, MINUTE } from './support.js'

interface Payout {
  id: string
  amount: number
  rail: string
  status: string
  paidAt: number | null
  failureReason: string | null
  createdAt: number
}

/** The Payout table's fields and types. */
function checkPayoutFields(t: CaseContext, payout: Payout): void {
  const problems: string[] = []
  if (typeof payout.id !== 'string') problems.push('id is not a string')
  if (!Number.isInteger(payout.amount)) problems.push('amount is not integer cents')
  if (payout.rail !== 'bank_transfer' && payout.rail !== 'wallet') problems.push(`rail ${JSON.stringify(payout.rail)}`)
  if (!['pending', 'paid', 'failed'].includes(payout.status)) problems.push(`status ${JSON.stringify(payout.status)}`)
  if (payout.paidAt !== null && !Number.isInteger(payout.paidAt)) problems.push('paidAt is not integer Unix ms or null')
  if (payout.failureReason !== null && typeof payout.failureReason !== 'string') problems.push('failureReason is not a string or null')
  if (!Number.isInteger(payout.createdAt)) problems.push('createdAt is not integer Unix ms')
  if (problems.length > 0) t.fail(`the Payout: ${problems.join('; ')}`)
}

/** Pays sessions of these amounts as the customer, with this key's mode. */
async function earn(t: CaseContext, amounts: number[], client: ConformanceClient = t.api, key?: string): Promise<void> {
  for (const amount of amounts) {
    const session = await createSession(t, { amount }, client)
    await t.sim.pay(session.id, 'succeeded', key)
  }
}

/** Advances the merchant's clock past the next 00:00 UTC, plus `extra`; answers that midnight. */
async function pastNextMidnight(t: CaseContext, extra = MINUTE): Promise<number> {
  const midnight = Math.floor((await t.sim.now()) / DAY) * DAY + DAY
  await t.sim.advanceTo(midnight + extra, `the next 00:00 UTC + ${extra / MINUTE} min`)
  return midnight
}

const payoutsOf = async (t: CaseContext, client: ConformanceClient = t.api, query = 'limit=100'): Promise<Payout[]> => t.ok(await client.get(`/v1/payouts?${query}`)).data as Payout[]

export const payoutCases = defineCases([
  {
    id: 'payouts/list',
    title: 'GET /v1/payouts answers {data, hasMore}',
    rules: ['lists.payouts', 'merchant-payout-endpoints.list'],
    async run(t) {
      const list = t.ok(await t.api.get('/v1/payouts', { record: 'shape' }))
      t.check(Array.isArray(list.data) && typeof list.hasMore === 'boolean', 'the list is not {data, hasMore}')
      for (const payout of list.data as Payout[]) checkPayoutFields(t, payout)
    },
  },
  {
    id: 'payouts/read-only',
    title: 'Payouts cannot be created through the API',
    rules: ['service.payouts-read-only', 'merchant-payout-endpoints.no-create'],
    async run(t) {
      const answer = await t.api.post('/v1/payouts', { amount: 1000 })
      t.check(answer.status >= 400 && answer.status < 500, `POST /v1/payouts answered ${answer.status}`)
      t.expectEnvelope(answer)
    },
  },
  {
    id: 'payouts/not-found',
    title: 'An unknown Payout id is 404',
    rules: ['merchant-payout-endpoints.get', 'errors.not-found'],
    async run(t) {
      const answer = await t.api.get('/v1/payouts/po_conformance_missing')
      t.expectStatus(answer, 404)
      t.expectEnvelope(answer)
    },
  },
  {
    id: 'payouts/settlement',
    title: 'A settlement run sweeps the balance into a Payout, paid at once in test mode',
    rules: ['payout-states.settlement', 'payout-states.test-paid', 'payout-states.paid', 'payout.fields', 'payout.rail', 'payout.created-at', 'merchant.fields', 'merchant-payout-endpoints.get'],
    needs: ['sim'],
    async run(t) {
      await earn(t, [1500, 2500])
      const before = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(before.balance === 4000, `the balance is ${before.balance} after paying 1500 and 2500`)
      await t.sim.settings({ payoutSchedule: 'daily' })
      const paidAt = await t.sim.now()
      const midnight = await pastNextMidnight(t)
      const payout = t.present((await payoutsOf(t))[0], 'no Payout after a daily settlement run')
      checkPayoutFields(t, payout)
      t.check(payout.amount === 4000 && payout.rail === 'bank_transfer', `the Payout is ${payout.amount} by ${payout.rail}, expected 4000 by bank_transfer`)
      t.check(payout.status === 'paid' && Number.isInteger(payout.paidAt), `a test Payout is ${payout.status}, expected paid with paidAt`)
      t.check(payout.createdAt > paidAt && payout.createdAt <= midnight + MINUTE, 'createdAt is not the settlement run\'s time')
      const read = t.ok(await t.api.get(`/v1/payouts/${payout.id}`)) as Payout
      t.check(read.id === payout.id && read.amount === 4000, 'GET /v1/payouts/{id} answers another Payout')
      const after = t.ok(await t.api.get('/v1/merchants/me'))
      t.check(after.balance === 0, `the balance is ${after.balance} after the Payout, expected 0`)
    },
  },
  {
    id: 'payouts/rail-individual',
    title: 'An Individual account\'s Payout goes by wallet',
    rules: ['payout.rail'],
    needs: ['sim', 'individual'],
    async run(t) {
      await earn(t, [1200])
      await t.sim.settings({ payoutSchedule: 'daily' })
      await pastNextMidnight(t)
      const [payout] = await payoutsOf(t)
      t.check(payout?.rail === 'wallet', `an Individual account's Payout goes by ${payout?.rail}, expected wallet`)
    },
  },
  {
    id: 'payouts/list-order',
    title: 'Payouts list oldest first; starting_after and hasMore page through them',
    rules: ['lists.payouts', 'merchant-payout-endpoints.list'],
    needs: ['sim'],
    async run(t) {
      await t.sim.settings({ payoutSchedule: 'daily' })
      for (const amount of [1100, 1200, 1300]) {
        await earn(t, [amount])
        await pastNextMidnight(t)
      }
      const all = await payoutsOf(t)
      t.check(JSON.stringify(all.map((payout) => payout.amount)) === '[1100,1200,1300]', `the Payouts list as ${all.map((payout) => payout.amount).join(', ')}, expected oldest first`)
      const first = t.ok(await t.api.get('/v1/payouts?limit=1'))
      t.check(first.hasMore === true && first.data[0]?.id === all[0]!.id, 'a page of 1 of 3 does not start with the oldest, or says no more')
      const next = t.ok(await t.api.get(`/v1/payouts?limit=2&starting_after=${first.data[0].id}`))
      t.check(next.hasMore === false && next.data.map((payout: Payout) => payout.id).join() === [all[1]!.id, all[2]!.id].join(), 'starting_after does not give the Payouts after it')
    },
  },
  {
    id: 'payouts/live',
    title: 'A live Payout is pending at the run, then paid when the money arrives',
    rules: ['payout-states.settlement', 'payout-states.paid', 'events.disbursement-sent'],
    needs: ['live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      const liveApi = t.as(live.secret, 'live secret')
      await t.sim.settings({ payoutSchedule: 'daily', payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Conformance', accountNumber: '12345678' } }, live.secret)
      await earn(t, [3000], liveApi, live.secret)
      const midnight = await pastNextMidnight(t)
      const [pending] = await payoutsOf(t, liveApi)
      t.check(pending?.status === 'pending' && pending.paidAt === null, `a live Payout at its run is ${pending?.status}, expected pending`)
      await t.sim.advanceTo(midnight + DAY - HOUR, 'the same day, 23:00 UTC')
      const paid = t.present((await payoutsOf(t, liveApi))[0], 'the live Payout is gone')
      t.check(paid.status === 'paid' && Number.isInteger(paid.paidAt), `the live Payout is ${paid.status} later that day, expected paid`)
      const sent = await t.sim.events('disbursement.sent', live.secret)
      t.check(sent.some((event) => event.data.object.id === paid.id), 'no disbursement.sent event for the live Payout')
    },
  },
  {
    id: 'payouts/live-failed',
    title: 'A live transfer that does not go through fails with a reason; the amount goes out in the next Payout',
    rules: ['payout-states.failed', 'payout.failure-reason', 'events.disbursement-failed'],
    needs: ['live'],
    async run(t) {
      const live = await t.sim.unlockLive()
      const liveApi = t.as(live.secret, 'live secret')
      await t.sim.settings({ payoutSchedule: 'daily', payoutDestination: { type: 'bank_account', bankName: 'BSP', accountName: 'Conformance', accountNumber: '12345678' } }, live.secret)
      await t.sim.failNextPayout('account closed', live.secret)
      await earn(t, [2000], liveApi, live.secret)
      const midnight = await pastNextMidnight(t)
      await t.sim.advanceTo(midnight + DAY - HOUR, 'the same day, 23:00 UTC')
      const failed = t.present((await payoutsOf(t, liveApi))[0], 'no live Payout after the settlement run')
      t.check(failed.status === 'failed' && typeof failed.failureReason === 'string' && failed.failureReason.length > 0, `the live Payout is ${failed.status} with failureReason ${failed.failureReason}`)
      const back = t.ok(await liveApi.get('/v1/merchants/me'))
      t.check(back.balance === 2000, `the live balance is ${back.balance} after the failed transfer, expected 2000 back`)
      const events = await t.sim.events('disbursement.failed', live.secret)
      t.check(events.some((event) => event.data.object.id === failed.id), 'no disbursement.failed event for the failed Payout')
      await earn(t, [500], liveApi, live.secret)
      await pastNextMidnight(t)
      const payouts = await payoutsOf(t, liveApi)
      t.check(payouts.length === 2 && payouts[1]!.amount === 2500, `the next Payout is ${payouts[1]?.amount}, expected 2500 with the returned 2000`)
    },
  },
])
