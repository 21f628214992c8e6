import { createHash } from 'node:crypto'
import { ApiError } from '../../src/errors.js'
import type { Mode } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'

/** Replayed responses are kept about 24 hours (spec), on the merchant's clock. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000

export interface IdempotencyRecord {
  id: string
  merchantId: string
  mode: Mode
  route: string
  createdAt: number
  expiresAt: number
  /** What the route compares a repeated request on (e.g. amount, currency, quote). */
  request: unknown
  status: number
  /**
   * The response body as JSON text. A string rather than the object tree: it
   * is only read on a replay, and as one JSON string it costs start-up a
   * fraction of the parsing and the heap of a copy of the object.
   */
  response?: string
  /** The response body, in records written before `response` existed. */
  body?: unknown
}

export interface IdempotentResult<B> {
  status: number
  body: B
  replayed: boolean
}

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
  scope: { caller: Caller; route: string; key: string },
  request: R,
  sameRequest: (stored: R, incoming: R) => boolean,
  execute: () => { status: number; body: B },
): IdempotentResult<B> {
  const { merchant, mode } = scope.caller
  const id = createHash('sha256').update(`${merchant.id}\n${mode}\n${scope.route}\n${scope.key}`).digest('hex')
  const now = ctx.clock.now(merchant.id)
  const stored = ctx.store.get('idempotency', id)
  if (stored && now < stored.expiresAt) {
    if (!sameRequest(stored.request as R, request)) {
      throw new ApiError(
        409,
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request.',
        'Idempotency-Key',
      )
    }
    const body = stored.response === undefined ? stored.body : JSON.parse(stored.response)
    return { status: stored.status, body: body as B, replayed: true }
  }
  const result = execute()
  if (result.status >= 200 && result.status < 300) {
    ctx.store.put('idempotency', {
      id,
      merchantId: merchant.id,
      mode,
      route: scope.route,
      createdAt: now,
      expiresAt: now + REPLAY_WINDOW_MS,
      request,
      status: result.status,
      response: JSON.stringify(result.body),
    })
  }
  return { ...result, replayed: false }
}
