import { setTimeout as sleep } from 'node:timers/promises'
import { ApiError } from '../errors.js'
import { NotAnEventStreamError, readSseMessages, type SseMessage } from './sse.js'

/** Waits between reconnects: doubling from `initialMs` up to `maxMs`, back to `initialMs` once connected. */
export interface Backoff {
  initialMs: number
  maxMs: number
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000 }

export interface FollowOptions {
  /** Opens the stream after `lastEventId` (BulaClient.openEventStream). */
  open: (lastEventId: string | undefined, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>
  /** Resume after this event on the first connection too, so nothing logged since it is missed. */
  lastEventId?: string
  /** Stops following; follow() then resolves. */
  signal: AbortSignal
  backoff?: Backoff
  onConnected: (info: { lastEventId: string | undefined }) => void
  onDisconnected: (info: { reason: string; retryInMs: number }) => void
  /** Awaited before the next message is read, so events are handled one at a time, in order. */
  onMessage: (message: SseMessage & { id: string }) => Promise<void>
}

/**
 * Follows the simulator's event stream until `signal` aborts: reads each
 * message, and when the stream ends or cannot be opened (the simulator
 * stopped or restarted), waits with backoff and reconnects with the id of the
 * last message handled as Last-Event-ID, so that the simulator replays what
 * was missed and nothing twice. Refusals that a retry cannot fix (a revoked
 * or wrong key: 4xx) are thrown, and so is a stream that is not a
 * simulator's (NotAnEventStreamError): reading it again would change nothing.
 */
export async function followEventStream(options: FollowOptions): Promise<void> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF
  const { signal } = options
  let lastEventId = options.lastEventId
  let delay = backoff.initialMs
  while (!signal.aborted) {
    let reason: string
    try {
      const body = await options.open(lastEventId, signal)
      options.onConnected({ lastEventId })
      delay = backoff.initialMs
      for await (const message of readSseMessages(body)) {
        // The simulator ids every event; a message without one could not be resumed after.
        if (message.id === undefined) continue
        await options.onMessage({ ...message, id: message.id })
        lastEventId = message.id
      }
      reason = 'The simulator closed the stream.'
    } catch (error) {
      if (signal.aborted) return
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) throw error
      if (error instanceof NotAnEventStreamError) throw error
      reason = reasonOf(error)
    }
    if (signal.aborted) return
    options.onDisconnected({ reason, retryInMs: delay })
    await sleep(delay, undefined, { signal }).catch(() => undefined)
    delay = Math.min(delay * 2, backoff.maxMs)
  }
}

/**
 * Calls `attempt` until the simulator answers it. At start the simulator may
 * not be up yet (started beside listen by a CI script or `concurrently`), and
 * once connected listen already waits out a stop or restart, so a simulator
 * that is not up yet is waited for the same way, with the same backoff. Only
 * connection_failed is retried: an answer, such as a wrong key's 401, is
 * thrown. Undefined once `signal` aborts.
 */
export async function untilReachable<T>(
  attempt: () => Promise<T>,
  options: { signal: AbortSignal; backoff?: Backoff; onWaiting: (info: { reason: string; retryInMs: number }) => void },
): Promise<T | undefined> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF
  const { signal } = options
  let delay = backoff.initialMs
  while (!signal.aborted) {
    try {
      return await attempt()
    } catch (error) {
      if (signal.aborted) return undefined
      if (!(error instanceof ApiError) || error.code !== 'connection_failed') throw error
      options.onWaiting({ reason: error.message, retryInMs: delay })
    }
    await sleep(delay, undefined, { signal }).catch(() => undefined)
    delay = Math.min(delay * 2, backoff.maxMs)
  }
  return undefined
}

/**
 * Why a stream broke, in words. fetch calls a connection cut in the middle
 * of its body "terminated" (the simulator was killed, or restarted).
 */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  if (error instanceof TypeError && error.message === 'terminated' && cause?.code === 'UND_ERR_SOCKET') {
    return 'The connection to the simulator broke (it was stopped or restarted).'
  }
  return error instanceof Error ? error.message : String(error)
}
