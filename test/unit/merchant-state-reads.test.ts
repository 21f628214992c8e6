import { describe, expect, it } from 'vitest'
import { createServiceContext, type Caller } from '../../server/context.js'
import type { ApiKeyRecord } from '../../server/domain/api-key.js'
import { openSession } from '../../server/services/checkout-sessions.js'
import { exportMerchantState, importMerchantState, resetMerchantState, STATE_COLLECTIONS } from '../../server/services/merchant-state.js'
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

/** The collections whose every document `run` walked (store.values), in the turn it ran. */
function walkedBy<T>(store: { values: (name: never) => unknown }, run: () => T): { result: T; walked: string[] } {
  const walked: string[] = []
  const values = store.values
  store.values = ((name: string) => {
    walked.push(name)
    return (values as (name: string) => unknown).call(store, name)
  }) as typeof store.values
  try {
    return { result: run(), walked }
  } finally {
    store.values = values
  }
}

describe("a merchant's state export, reset and import", () => {
  it("read that merchant's own objects through its group, never walking another merchant's", async () => {
    const { ctx, store, big, small, smallIds } = await twoMerchants()
    const exported = walkedBy(store, () => exportMerchantState(ctx, small))
    expect(exported.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    // Only the merchant's own, in creation order, as before.
    expect(exported.result.collections.checkoutSessions.map((session) => session.id)).toEqual(smallIds)

    const reset = walkedBy(store, () => resetMerchantState(ctx, small))
    expect(reset.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    expect(store.group('checkoutSessions', 'byMerchantMode', `${small.merchant.id}:test`)).toEqual([])
    expect(store.group('checkoutSessions', 'byMerchantMode', `${big.merchant.id}:test`)).toHaveLength(50)

    const imported = walkedBy(store, () => importMerchantState(ctx, small, JSON.parse(JSON.stringify(exported.result))))
    expect(imported.walked.filter((name) => GROUPED.includes(name as never))).toEqual([])
    expect(imported.result.imported).toBe(2)
    expect(exportMerchantState(ctx, small).collections.checkoutSessions.map((session) => session.id)).toEqual(smallIds)
    expect(store.group('checkoutSessions', 'byMerchantMode', `${big.merchant.id}:test`)).toHaveLength(50)
  })
})
