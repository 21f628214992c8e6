import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createServiceContext, type Caller } from '../../server/context.js'
import type { ApiKeyRecord } from '../../server/domain/api-key.js'
import { newMerchant } from '../../server/domain/merchant.js'
import { findStoredResult, registerIdempotencyPurge, REPLAY_WINDOW_MS, replayRecord, runIdempotent } from '../../server/services/idempotency.js'
import { COLLECTION_NAMES, INDEXES, LAZY_COLLECTIONS, type Collections } from '../../server/store/collections.js'
import { openStore } from '../../server/store/index.js'
import { journalFileOf } from '../../server/store/journal-file.js'
import { ApiError } from '../../src/errors.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'
import { tempFolder } from '../helpers/temp.js'

async function setup() {
  const { store } = await openStore<Collections>({ collections: COLLECTION_NAMES, indexes: INDEXES })
  const wall = new ManualWallClock(Date.UTC(2026, 0, 1))
  const ctx = createServiceContext({ store, wall, log: () => {} })
  const merchant = newMerchant({ id: 'ms_a', email: 'a@b.test', name: 'A', tier: 'business', now: wall.now() })
  store.put('merchants', merchant)
  const caller = (mode: 'test' | 'live'): Caller => ({ merchant, mode, key: { id: 'key_x' } as ApiKeyRecord })
  return { ctx, wall, caller }
}

const sameAmount = (a: { amount: number }, b: { amount: number }) => a.amount === b.amount

describe('runIdempotent', () => {
  it('runs once and replays the original status and body', async () => {
    const { ctx, caller } = await setup()
    let runs = 0
    const run = (amount: number) =>
      runIdempotent(ctx, { caller: caller('test'), route: 'POST /v1/things', key: 'k1' }, { amount }, sameAmount, () => ({
        status: 201,
        body: { id: `thing_${++runs}` },
      }))
    // The body also as the JSON text the record keeps, which the answer sends as it is.
    expect(run(100)).toEqual({ status: 201, body: { id: 'thing_1' }, replayed: false, json: '{"id":"thing_1"}' })
    expect(run(100)).toEqual({ status: 201, body: { id: 'thing_1' }, replayed: true, json: '{"id":"thing_1"}' })
    expect(runs).toBe(1)
  })

  it('journals the record with the answer as an object, its text exactly the answer sent, and replays it after a restart', async () => {
    const file = path.join(await tempFolder('bula-idempotency-'), 'data.json')
    const open = () => openStore<Collections>({ file, collections: COLLECTION_NAMES, indexes: INDEXES, lazy: LAZY_COLLECTIONS })
    const body = { id: 'thing_1', note: 'a "quoted" \\ line\u2028 é 🌴', items: [{ n: 1 }], none: null }
    const first = await open()
    const ctx = createServiceContext({ store: first.store, wall: new ManualWallClock(Date.UTC(2026, 0, 1)), log: () => {} })
    const merchant = newMerchant({ id: 'ms_a', email: 'a@b.test', name: 'A', tier: 'business', now: Date.UTC(2026, 0, 1) })
    first.store.put('merchants', merchant)
    const scope = { caller: { merchant, mode: 'test' as const, key: { id: 'key_x' } as ApiKeyRecord }, route: 'POST /v1/things', key: 'k1' }
    const made = runIdempotent(ctx, scope, { amount: 100 }, sameAmount, () => ({ status: 201, body }))
    await first.store.commit()

    const puts = readFileSync(journalFileOf(file), 'utf8').split('\n').filter((line) => line.startsWith('{'))
    const ops = puts.flatMap((line) => (JSON.parse(line) as { ops: unknown[][] }).ops)
    const [, , id, record] = ops.find(([op, collection]) => op === 'put' && collection === 'idempotency') as [string, string, string, Record<string, unknown>]
    expect(record).toEqual({ id, merchantId: 'ms_a', mode: 'test', route: 'POST /v1/things', createdAt: Date.UTC(2026, 0, 1), expiresAt: Date.UTC(2026, 0, 1) + REPLAY_WINDOW_MS, request: { amount: 100 }, status: 201, body })
    // The line holds the record as JSON.stringify writes it, the answer's text spliced in unchanged.
    expect(puts.join('\n')).toContain(`"${id}",${JSON.stringify(record)}]`)

    await first.store.close()
    const second = await open()
    const again = createServiceContext({ store: second.store, wall: new ManualWallClock(Date.UTC(2026, 0, 1)), log: () => {} })
    const replayed = runIdempotent(again, scope, { amount: 100 }, sameAmount, () => ({ status: 201, body: { id: 'thing_2' } }))
    expect(replayed).toEqual({ ...made, replayed: true })
    expect(replayed.json).toBe(JSON.stringify(body))
    await second.store.close()
  })

  it('refuses the same key with a different request: 409 idempotency_key_reused', async () => {
    const { ctx, caller } = await setup()
    const scope = { caller: caller('test'), route: 'POST /v1/things', key: 'k1' }
    runIdempotent(ctx, scope, { amount: 100 }, sameAmount, () => ({ status: 201, body: {} }))
    expect(() => runIdempotent(ctx, scope, { amount: 200 }, sameAmount, () => ({ status: 201, body: {} }))).toThrow(
      expect.objectContaining({ status: 409, code: 'idempotency_key_reused' }),
    )
  })

  it('stores nothing when the change fails, so a corrected retry runs', async () => {
    const { ctx, caller } = await setup()
    const scope = { caller: caller('test'), route: 'POST /v1/things', key: 'k1' }
    expect(() =>
      runIdempotent(ctx, scope, { amount: -1 }, sameAmount, () => {
        throw new ApiError(400, 'invalid_request', 'bad amount', 'amount')
      }),
    ).toThrow(ApiError)
    expect(runIdempotent(ctx, scope, { amount: 5 }, sameAmount, () => ({ status: 201, body: { ok: true } })).replayed).toBe(false)
  })

  it('scopes keys by mode and route', async () => {
    const { ctx, caller } = await setup()
    let runs = 0
    const exec = () => ({ status: 200, body: { run: ++runs } })
    runIdempotent(ctx, { caller: caller('test'), route: 'POST /a', key: 'k' }, { amount: 1 }, sameAmount, exec)
    runIdempotent(ctx, { caller: caller('live'), route: 'POST /a', key: 'k' }, { amount: 1 }, sameAmount, exec)
    runIdempotent(ctx, { caller: caller('test'), route: 'POST /b', key: 'k' }, { amount: 1 }, sameAmount, exec)
    expect(runs).toBe(3)
  })

  it('forgets a key after 24 hours of the merchant clock', async () => {
    const { ctx, caller } = await setup()
    let runs = 0
    const run = () =>
      runIdempotent(ctx, { caller: caller('test'), route: 'POST /a', key: 'k' }, { amount: 1 }, sameAmount, () => ({
        status: 201,
        body: { run: ++runs },
      }))
    run()
    await ctx.clock.advance('ms_a', { ms: REPLAY_WINDOW_MS - 1 }, 'both')
    expect(run().replayed).toBe(true)
    await ctx.clock.advance('ms_a', { ms: 1 }, 'both')
    expect(run()).toMatchObject({ replayed: false, body: { run: 2 } })
  })

  it('purges records once past the replay window of the merchant clock, oldest first, and keeps the rest', async () => {
    const { ctx, wall, caller } = await setup()
    registerIdempotencyPurge(ctx)
    const HOUR = 60 * 60 * 1000
    const run = (key: string) => runIdempotent(ctx, { caller: caller('test'), route: 'POST /a', key }, { amount: 1 }, sameAmount, () => ({ status: 201, body: { key } }))
    const records = () => ctx.store.group('idempotency', 'byMerchantMode', 'ms_a:test').map((id) => JSON.stringify(ctx.store.get('idempotency', id)!.body))
    run('first')
    wall.tick(HOUR)
    run('second')
    wall.tick(HOUR)
    run('third')
    await ctx.clock.advance('ms_a', { ms: REPLAY_WINDOW_MS - 2 * HOUR }, 'both')
    await ctx.clock.sweep()
    // `first` is a full window old; `second` is an hour short of it.
    expect(records()).toEqual(['{"key":"second"}', '{"key":"third"}'])
    // A key past its window runs again, and its record goes to the end: the group stays in creation order.
    await ctx.clock.advance('ms_a', { ms: HOUR }, 'both')
    expect(run('second')).toMatchObject({ replayed: false })
    await ctx.clock.sweep()
    expect(records()).toEqual(['{"key":"third"}', '{"key":"second"}'])
    await ctx.clock.advance('ms_a', { ms: 2 * REPLAY_WINDOW_MS }, 'both')
    await ctx.clock.sweep()
    expect(records()).toEqual([])
  })
})

// What a route asks when a request's body fails its schema: the key's stored result still answers it.
describe('findStoredResult and replayRecord', () => {
  it('finds the record runIdempotent stored, in its scope and window only, and replays it as runIdempotent does', async () => {
    const { ctx, caller } = await setup()
    const scope = { caller: caller('test'), route: 'POST /a', key: 'k' }
    expect(findStoredResult(ctx, scope)).toBeUndefined()
    const original = runIdempotent(ctx, scope, { amount: 1 }, sameAmount, () => ({ status: 201, body: { id: 'thing_1' } }))
    const record = findStoredResult(ctx, scope)!
    expect(replayRecord(record, { amount: 1 }, sameAmount)).toEqual({ ...original, replayed: true })
    expect(() => replayRecord(record, { amount: 2 }, sameAmount)).toThrow(expect.objectContaining({ status: 409, code: 'idempotency_key_reused' }))
    expect(findStoredResult(ctx, { ...scope, caller: caller('live') })).toBeUndefined()
    expect(findStoredResult(ctx, { ...scope, route: 'POST /b' })).toBeUndefined()
    await ctx.clock.advance('ms_a', { ms: REPLAY_WINDOW_MS - 1 }, 'both')
    expect(findStoredResult(ctx, scope)).toBe(record)
    await ctx.clock.advance('ms_a', { ms: 1 }, 'both')
    expect(findStoredResult(ctx, scope)).toBeUndefined()
  })
})
