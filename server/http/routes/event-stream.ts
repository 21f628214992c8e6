import type { Request, Response } from 'express'
import type { RequestLogQuery } from '../../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../../context.js'
import { eventsAfter } from '../../events/event-log.js'
import { eventPayload, type EventRecord } from '../../events/payload.js'
import { keyStillUsable } from '../../services/api-keys.js'
import { matches, present, type LoggedRequest } from '../../services/request-log.js'
import { callerOf } from '../auth.js'

const HEARTBEAT_MS = 15_000
/** How often an open stream checks that its key still authenticates: a revoked key's stream ends within this. */
const KEY_CHECK_MS = 500
/**
 * How far a reader may fall behind, in bytes written but not yet taken by
 * its socket, before the stream drops it: a client that stops reading must
 * not make the simulator hold every later message. A dropped `bula listen`
 * reconnects with Last-Event-ID and misses no event.
 */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024

interface SseMessage {
  id?: string
  event: string
  data: unknown
}

/**
 * Server-Sent Events from the context's bus: `channel` items the caller may
 * see, formatted as messages, until the client leaves, the server stops, or
 * the key that opened the stream stops authenticating (revoked, or past its
 * rotation overlap): a stream never outlives its key by more than about
 * half a second (docs/security.md). A reader more than MAX_UNREAD_BYTES
 * behind the live messages is dropped; the replayed backlog does not count.
 */
function serveSse<T>(
  ctx: ServiceContext,
  req: Request,
  res: Response,
  channel: 'event' | 'request',
  toMessage: (item: T) => SseMessage | undefined,
  backlog: readonly T[] = [],
): void {
  const { key } = callerOf(res)
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' })
  // HEAD gets the headers GET would, and no stream: Node sends a HEAD answer's headers only when it ends, so a
  // stream left open answered nothing at all, for as long as the client waited.
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  res.write('retry: 1000\n: connected\n\n')
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  const keyCheck = setInterval(() => {
    if (!keyStillUsable(ctx, key)) stop()
  }, KEY_CHECK_MS)
  function stop(): void {
    clearInterval(heartbeat)
    clearInterval(keyCheck)
    ctx.eventBus.off(channel, sendLive)
    ctx.eventBus.off('shutdown', stop)
    res.end()
  }
  function send(message: SseMessage): void {
    if (!keyStillUsable(ctx, key)) {
      stop()
      return
    }
    res.write(`${message.id ? `id: ${message.id}\n` : ''}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`)
  }
  /** What the backlog left unread when it was written: a reconnect may replay much at once. */
  let backlogBytes = 0
  // An event is in the log, and so in a backlog, as soon as it is recorded,
  // but reaches the bus only once it is on disk: one recorded just before
  // this stream opened comes both ways, and is sent once. Writes finish in
  // the order they were made, so the first live message that is not a replay
  // means every replayed one has come by: the set is let go.
  const replayed = new Set<string>()
  function sendLive(item: T): void {
    const message = toMessage(item)
    if (!message) return
    if (message.id !== undefined && replayed.size > 0) {
      if (replayed.delete(message.id)) return
      replayed.clear()
    }
    // Destroyed, not ended: an end waits for the unread bytes to go, which they never do.
    if (res.writableLength > backlogBytes + MAX_UNREAD_BYTES) {
      stop()
      res.destroy()
      return
    }
    send(message)
  }
  for (const item of backlog) {
    const message = toMessage(item)
    if (!message) continue
    if (message.id !== undefined) replayed.add(message.id)
    send(message)
  }
  backlogBytes = res.writableLength
  ctx.eventBus.on(channel, sendLive)
  ctx.eventBus.on('shutdown', stop)
  req.on('close', stop)
}

/**
 * `GET /_sim/events/stream`: the merchant's events of the key's mode, for
 * `bula listen`. Each message carries the event id, so a client that
 * reconnects with `Last-Event-ID` gets what it missed.
 */
export function serveEventStream(ctx: ServiceContext, { req, res, caller }: { req: Request; res: Response; caller: Caller }): undefined {
  const { merchant, mode } = caller
  const lastId = req.get('last-event-id')
  serveSse<EventRecord>(
    ctx,
    req,
    res,
    'event',
    (event) => (event.merchantId === merchant.id && event.mode === mode ? { id: event.id, event: event.type, data: eventPayload(event) } : undefined),
    lastId ? eventsAfter(ctx, merchant.id, mode, lastId) : [],
  )
  return undefined
}

/** `GET /_sim/logs/stream[?status=4xx&path=/v1/...]`: the merchant's API calls of the key's mode as they finish, for `bula logs tail`. */
export function serveRequestLogStream(
  ctx: ServiceContext,
  { req, res, caller, query }: { req: Request; res: Response; caller: Caller; query: RequestLogQuery },
): undefined {
  const { merchant, mode } = caller
  serveSse<LoggedRequest>(ctx, req, res, 'request', (entry) =>
    entry.merchantId === merchant.id && entry.mode === mode && matches(entry, query) ? { event: 'request', data: present(entry) } : undefined,
  )
  return undefined
}
