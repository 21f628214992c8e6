import type { RequestHandler } from 'express'
import type { ServiceContext } from '../../context.js'
import { eventsAfter } from '../../events/event-log.js'
import { eventPayload, type EventRecord } from '../../events/payload.js'
import { callerOf } from '../auth.js'

const HEARTBEAT_MS = 15_000

/**
 * `GET /_sim/events/stream`: the merchant's events of the key's mode as
 * Server-Sent Events, for `bula listen`. Each message carries the event id,
 * so a client that reconnects with `Last-Event-ID` gets what it missed.
 */
export function eventStream(ctx: ServiceContext): RequestHandler {
  return (req, res) => {
    const { merchant, mode } = callerOf(res)
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    const send = (event: EventRecord): void => {
      res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(eventPayload(event))}\n\n`)
    }
    res.write('retry: 1000\n: connected\n\n')
    const lastId = req.get('last-event-id')
    if (lastId) for (const event of eventsAfter(ctx, merchant.id, mode, lastId)) send(event)

    const onEvent = (event: EventRecord): void => {
      if (event.merchantId === merchant.id && event.mode === mode) send(event)
    }
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
    const stop = (): void => {
      clearInterval(heartbeat)
      ctx.eventBus.off('event', onEvent)
      ctx.eventBus.off('shutdown', stop)
      res.end()
    }
    ctx.eventBus.on('event', onEvent)
    ctx.eventBus.on('shutdown', stop)
    req.on('close', stop)
  }
}
