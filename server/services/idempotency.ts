import { apiError } from '../domain/error-catalog.js'
import { hash } from 'node:crypto'
import type { Caller, ServiceContext } from '../context.js'
import type { IdempotencyRecord } from '../domain/records.js'
import { merchantModeGroup } from '../store/collections.js'

export type { IdempotencyRecord }

/** Replayed responses are kept about 24 hours (spec), on the merchant's clock. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000

export interface IdempotentResult<B> {
  status: number
  body: B
  replayed: boolean
  /** The body as JSON text, as the record keeps it: an answer sends this instead of serializing the body once more. */
  json: string
}

/** Where a key's result is kept: merchant, mode, route and key. */
export interface IdempotencyScope {
  caller: Caller
  route: string
  key: string
}

/**
 * A key's record, `live` while it is in its replay window. The one lookup
 * of a key: runIdempotent makes it before every change, and
 * findStoredResult() for a request refused before its change could run.
 */
function lookUp(ctx: ServiceContext, scope: IdempotencyScope): { id: string; now: number; stored: IdempotencyRecord | undefined; live: IdempotencyRecord | undefined } {
  const { merchant, mode } = scope.caller
  // One-shot hash: every create pays for it, and a Hash object costs more than the hashing.
  const id = hash('sha256', `${merchant.id}\n${mode}\n${scope.route}\n${scope.key}`)
  const now = ctx.clock.now(merchant.id)
  const stored = ctx.store.get('idempotency', id)
  return { id, now, stored, live: stored && now < stored.expiresAt ? stored : undefined }
}

/** The stored result for a repeat of its key: the original status and body, or 409 for a different request. */
export function replayRecord<R, B>(record: IdempotencyRecord, request: R, sameRequest: (stored: R, incoming: R) => boolean): IdempotentResult<B> {
  if (!sameRequest(record.request as R, request)) {
    throw apiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request.', { param: 'Idempotency-Key' })
  }
  const json = record.response ?? JSON.stringify(record.body)
  return { status: record.status, body: JSON.parse(json) as B, replayed: true, json }
}

/**
 * The record of a key that has a result in its replay window, if any. A
 * route asks only once its schemas refused a request: a repeated key is
 * answered with its stored result whatever the body (spec, Idempotency:
 * "Repeating a key returns the original result"), through replayRecord().
 */
export const findStoredResult = (ctx: ServiceContext, scope: IdempotencyScope): IdempotencyRecord | undefined => lookUp(ctx, scope).live

/**
 * Runs a change once per Idempotency-Key, scoped to merchant, mode and route.
 *
 * `execute` makes its changes synchronously, and the stored result is put in
 * the same turn, so both reach the journal in one line and concurrent
 * requests with one key cannot both run: the second finds the first's record.
 * A change that throws stores nothing, so a request that failed validation or
 * a rule can be retried with the same key and a corrected body. Only 2xx
 * results are stored, and a replay answers after the original is durable
 * (the caller commits before responding).
 */
export function runIdempotent<R, B>(
  ctx: ServiceContext,
  scope: IdempotencyScope,
  request: R,
  sameRequest: (stored: R, incoming: R) => boolean,
  execute: () => { status: number; body: B },
): IdempotentResult<B> {
  const { id, now, stored, live } = lookUp(ctx, scope)
  if (live) return replayRecord(live, request, sameRequest)
  const result = execute()
  const json = JSON.stringify(result.body)
  if (result.status >= 200 && result.status < 300) {
    // A record past its window is replaced at the end of its group, which stays in creation order for the purge.
    if (stored) ctx.store.delete('idempotency', id)
    const { merchant, mode } = scope.caller
    const head = { id, merchantId: merchant.id, mode, route: scope.route, createdAt: now, expiresAt: now + REPLAY_WINDOW_MS, request, status: result.status }
    // The answer as an object in the record, not as JSON text in a string, which cost every create 0.9 µs of escaping
    // its quotes. Its text is the answer's own, spliced in: the record's JSON.stringify, without serializing it again.
    ctx.store.put('idempotency', { ...head, body: result.body }, `${JSON.stringify(head).slice(0, -1)},"body":${json}}`)
  }
  return { ...result, replayed: false, json }
}

/** Records deleted per turn of the event loop when many fall out of their window at once (a clock advanced by days). */
const PURGE_SLICE = 2_000

/**
 * Deletes every record whose replay window has passed on its merchant's
 * clock: it can never be replayed again, and the records would otherwise
 * be kept forever. Each merchant's records per mode are in creation order
 * (their group), so each group is read from the front up to the first
 * record still in its window; a record that came back in order is never
 * deleted early, at worst late. Runs as the clock's housekeeping, in slices
 * with a commit each, so a large purge never holds the event loop.
 */
export async function purgeExpiredIdempotency(ctx: ServiceContext): Promise<void> {
  for (const merchant of [...ctx.store.values('merchants')]) {
    for (const mode of ['test', 'live'] as const) {
      const group = merchantModeGroup(merchant.id, mode)
      for (;;) {
        const now = ctx.clock.now(merchant.id)
        const ids = ctx.store.group('idempotency', 'byMerchantMode', group)
        let expired = 0
        while (expired < ids.length && expired < PURGE_SLICE && now >= ctx.store.get('idempotency', ids[expired]!)!.expiresAt) expired++
        if (expired === 0) break
        for (const id of ids.slice(0, expired)) ctx.store.delete('idempotency', id)
        await ctx.store.commit()
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  }
}

export function registerIdempotencyPurge(ctx: ServiceContext): void {
  ctx.clock.registerSweep(() => purgeExpiredIdempotency(ctx))
}
