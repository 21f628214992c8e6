import { describe, expect, it } from 'vitest'
import { createServiceContext, type Caller, type ServiceContext } from '../../server/context.js'
import type { ApiKeyRecord } from '../../server/domain/api-key.js'
import { STATE_COLLECTIONS } from '../../server/domain/state-consistency.js'
import { openSession } from '../../server/services/checkout-sessions.js'
import { exportMerchantState, importMerchantState, resetMerchantState } from '../../server/services/merchant-state.js'
import { signup } from '../../server/services/merchants.js'
import { COLLECTION_NAMES, INDEXES, type Collections } from '../../server/store/collections.js'
import { openStore } from '../../server/store/index.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

// A merchant's state export, reset and import run in one turn of the event loop. Walking every merchant's
// documents there held the whole simulator 230–310 ms for a merchant of five sessions beside another's 100,000
// (docs/performance.md): the collections listed per merchant and mode are read through that group instead.

const GROUPED = STATE_COLLECTIONS.filter((name) => INDEXES.groups?.[name]?.byMerchantMode !== undefined)

async function twoMerchants() {
  const { store } = await openStore<Collections>({ collections: COLLECTION_NAMES, indexes: INDEXES })
  const wall = new ManualWallClock(Date.UTC(2026, 10, 1))
  const ctx = createServiceContext({ store, wall, log: () => {} })
  const callerOf = (name: string): Caller => {
    const { merchant } = signup(ctx, { email: `${name}@example.test`, name, tier: 'business' })
    return { merchant: store.get('merchants', merchant.id)!, mode: 'test', key: { id: `key_${name}` } as ApiKeyRecord }
  }
  const big = callerOf('big')
  const small = callerOf('small')
  const open = (caller: Caller, amount: number) =>
    openSession(ctx, caller.merchant, 'test', {
      amount,
      quote: null,
      metadata: {},
      successUrl: null,
      cancelUrl: null,
      customerEmail: null,
      invoiceNumber: null,
      invoiceId: null,
      createdAt: wall.now(),
      expiresAt: wall.now() + 86_400_000,
    })
  for (let i = 0; i < 50; i++) open(big, 100 + i)
  const smallIds = [open(small, 1), open(small, 2)].map((session) => session.id)
  return { ctx, store, big, small, smallIds }
}

/**
 * The collections whose every document `run` walked (store.values) while it
 * ran. The clock's look at every session after a reset or an import is its
 * own, in the background and in slices (ClockService.reload): it is stubbed
 * out here, so that only the service's own walks are counted.
 */
async function walkedBy<T>(ctx: ServiceContext, run: () => T | Promise<T>): Promise<{ result: T; walked: string[] }> {
  const { store, clock } = ctx
  const walked: string[] = []
  const { values } = store
  const { reload } = clock
  store.values = ((name: keyof Collections) => {
    walked.push(name)
    return values.call(store, name)
  }) as typeof store.values
  clock.reload = () => {}
  try {
    return { result: await run(), walked }
  } finally {
    store.values = values
    clock.reload = reload
  }
}

describe("a merchant's state export, reset and import", () => {
  it("read that merchant's own objects through its group, never walking another merchant's", async () => {
    const { ctx, store, big, small, smallIds } = await twoMerchants()
    const exported = await walkedBy(ctx, () => exportMerchantState(ctx, small))
    expect(exported.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    // Only the merchant's own, in creation order, as before.
    expect(exported.result.collections.checkoutSessions.map((session) => session.id)).toEqual(smallIds)

    const reset = await walkedBy(ctx, () => resetMerchantState(ctx, small))
    expect(reset.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    expect(store.group('checkoutSessions', 'byMerchantMode', `${small.merchant.id}:test`)).toEqual([])
    expect(store.group('checkoutSessions', 'byMerchantMode', `${big.merchant.id}:test`)).toHaveLength(50)

    const imported = await walkedBy(ctx, () => importMerchantState(ctx, small, JSON.parse(JSON.stringify(exported.result))))
    expect(imported.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    expect(imported.result.imported).toBe(2)
    expect(exportMerchantState(ctx, small).collections.checkoutSessions.map((session) => session.id)).toEqual(smallIds)
    expect(store.group('checkoutSessions', 'byMerchantMode', `${big.merchant.id}:test`)).toHaveLength(50)
  })
})
