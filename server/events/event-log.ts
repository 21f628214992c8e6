import { invalidRequest } from '../../src/errors.js'
import type { Event, EventList, EventType, ListEventsQuery, Mode } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { merchantModeGroup } from '../store/collections.js'
import { newId } from '../ids.js'

export interface EventRecord {
  id: string
  merchantId: string
  mode: Mode
  type: EventType
  createdAt: number
  object: Record<string, unknown>
}

/**
 * Records an event of the merchant and mode, at the merchant's current time.
 * Every event the simulator produces goes through here, so delivery can hang
 * off this one place.
 */
export function recordEvent(
  ctx: ServiceContext,
  merchantId: string,
  mode: Mode,
  type: EventType,
  object: object,
): EventRecord {
  const event: EventRecord = {
    id: newId('evt'),
    merchantId,
    mode,
    type,
    createdAt: ctx.clock.now(merchantId),
    object: object as Record<string, unknown>,
  }
  ctx.store.put('events', event)
  return event
}

/** The webhook payload (contract §8). */
export const eventPayload = (event: EventRecord): Event => ({
  event_id: event.id,
  type: event.type,
  mode: event.mode,
  createdAt: event.createdAt,
  data: { object: event.object },
})

/** The merchant's events of the caller's mode, newest first, with `starting_after` paging. */
export function listEvents(ctx: ServiceContext, caller: Caller, query: ListEventsQuery): EventList {
  const ids = ctx.store.group('events', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
  let end = ids.length
  if (query.starting_after !== undefined) {
    end = ids.lastIndexOf(query.starting_after)
    if (end < 0) throw invalidRequest('starting_after is not an event of this merchant and mode.', 'starting_after')
  }
  const limit = query.limit ?? 10
  const data: Event[] = []
  let hasMore = false
  for (let i = end - 1; i >= 0; i--) {
    const event = ctx.store.get('events', ids[i]!)!
    if (query.type !== undefined && event.type !== query.type) continue
    if (data.length === limit) {
      hasMore = true
      break
    }
    data.push(eventPayload(event))
  }
  return { data, hasMore }
}
