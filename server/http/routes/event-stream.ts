import type { Request, RequestHandler, Response } from 'express'
import { requestLogQuerySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { eventsAfter } from '../../events/event-log.js'
import { eventPayload, type EventRecord } from '../../events/payload.js'
import { matches, present, type LoggedRequest } from '../../services/request-log.js'
import { callerOf } from '../auth.js'
import { parseWith } from '../validate.js'

const HEARTBEAT_MS = 15_000

interface SseMessage {
  id?: string
  event: string
  data: unknown
}

/**
 * Server-Sent Events from the context's bus: `channel` items the caller may
 * see, formatted as messages, until the client leaves or the server stops.
 */
function serveSse<T>(
  ctx: ServiceContext,
  req: Request,
  res: Response,
  channel: 'event' | 'request',
  toMessage: (item: T) => SseMessage | undefined,
  backlog: readonly T[] = [],
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' })
  const send = (item: T): void => {
    const message = toMessage(item)
    if (!message) return
    res.write(`${message.id ? `id: ${message.id}\n` : ''}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`)
  }
  res.write('retry: 1000\n: connected\n\n')
  for (const item of backlog) send(item)
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  const stop = (): void => {
    clearInterval(heartbeat)
    ctx.eventBus.off(channel, send)
    ctx.eventBus.off('shutdown', stop)
    res.end()
  }
  ctx.eventBus.on(channel, send)
  ctx.eventBus.on('shutdown', stop)
  req.on('close', stop)
}

/**
 * `GET /_sim/events/stream`: the merchant's events of the key's mode, for
 * `bula listen`. Each message carries the event id, so a client that
 * reconnects with `Last-Event-ID` gets what it missed.
 */
export function eventStream(ctx: ServiceContext): RequestHandler {
  return (req, res) => {
    const { merchant, mode } = callerOf(res)
    const lastId = req.get('last-event-id')
    serveSse<EventRecord>(
      ctx,
      req,
      res,
      'event',
      (event) => (event.merchantId === merchant.id && event.mode === mode ? { id: event.id, event: event.type, data: eventPayload(event) } : undefined),
      lastId ? eventsAfter(ctx, merchant.id, mode, lastId) : [],
    )
  }
}

/** `GET /_sim/logs/stream[?status=4xx&path=/v1/...]`: the merchant's API calls of the key's mode as they finish, for `bula logs tail`. */
export function requestLogStream(ctx: ServiceContext): RequestHandler {
  return (req, res) => {
    const { merchant, mode } = callerOf(res)
    const query = parseWith(requestLogQuerySchema, req.query, 'query')
    serveSse<LoggedRequest>(ctx, req, res, 'request', (entry) =>
      entry.merchantId === merchant.id && entry.mode === mode && matches(entry, query) ? { event: 'request', data: present(entry) } : undefined,
    )
  }
}
