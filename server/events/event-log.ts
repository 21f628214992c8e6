import { invalidRequest, invalidState, notFound } from '../../src/errors.js'
import type { EventList, EventType, EventWithDeliveries, ListEventsQuery, Mode } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { presentDelivery, type DeliveryRecord } from '../domain/webhook-endpoint.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'
import { activeEndpoints, enqueueDeliveries, findOwnEndpoint, ownEndpoint } from './delivery.js'
import { eventPayload, type EventRecord } from './payload.js'

/**
 * Records an event of the merchant and mode at the merchant's current time
 * and queues its delivery to every active endpoint. Every event the
 * simulator produces goes through here. Live listeners (`bula listen`) hear
 * it once it is on disk.
 */
export function recordEvent(ctx: ServiceContext, merchantId: string, mode: Mode, type: EventType, object: object): EventRecord {
  const event: EventRecord = {
    id: newId('evt'),
    merchantId,
    mode,
    type,
    createdAt: ctx.clock.now(merchantId),
    object: object as Record<string, unknown>,
  }
  ctx.store.put('events', event)
  if (type !== 'webhook.verified') enqueueDeliveries(ctx, event, activeEndpoints(ctx, merchantId, mode))
  ctx.store.commit().then(
    () => ctx.eventBus.emit('event', event),
    () => {}, // the request that made the event reports the failed write
  )
  return event
}

function ownEvent(ctx: ServiceContext, caller: Caller, id: string): EventRecord {
  const event = ctx.store.get('events', id)
  if (!event || event.merchantId !== caller.merchant.id || event.mode !== caller.mode) throw notFound('event')
  return event
}

export function deliveriesOf(ctx: ServiceContext, eventId: string): DeliveryRecord[] {
  return ctx.store
    .group('deliveries', 'byEvent', eventId)
    .map((id) => ctx.store.get('deliveries', id))
    .filter((delivery): delivery is DeliveryRecord => delivery !== undefined)
}

export function getEvent(ctx: ServiceContext, caller: Caller, id: string): EventWithDeliveries {
  const event = ownEvent(ctx, caller, id)
  return { event: eventPayload(event), deliveries: deliveriesOf(ctx, event.id).map(presentDelivery) }
}

/**
 * Sends the event again, same id, to the given endpoint or every active one,
 * under the rules of a first delivery (spec, Events): `webhook.verified`
 * goes only to the endpoint it verifies (whatever its status, so a resend
 * can verify it), and any other event only to active endpoints.
 */
export function resendEvent(ctx: ServiceContext, caller: Caller, id: string, endpointId: string | undefined): DeliveryRecord[] {
  const event = ownEvent(ctx, caller, id)
  const named = endpointId === undefined ? undefined : ownEndpoint(ctx, caller, endpointId)
  if (event.type === 'webhook.verified') {
    const verifiedId = String(event.object.id)
    if (named && named.id !== verifiedId) {
      throw invalidRequest(`${event.id} verifies endpoint ${verifiedId}: webhook.verified goes to that endpoint only.`, 'endpointId')
    }
    // Unless deleted since.
    const verified = findOwnEndpoint(ctx, caller, verifiedId)
    return enqueueDeliveries(ctx, event, verified ? [verified] : [])
  }
  if (named && named.status !== 'active') {
    throw invalidState(`Endpoint ${named.id} is ${named.status}: events other than webhook.verified skip it until it answers one with a 2xx.`)
  }
  return enqueueDeliveries(ctx, event, named ? [named] : activeEndpoints(ctx, event.merchantId, event.mode))
}

/** Events of the merchant and mode after `lastId` (for a stream resuming with Last-Event-ID), oldest first. */
export function eventsAfter(ctx: ServiceContext, merchantId: string, mode: Mode, lastId: string): EventRecord[] {
  const ids = ctx.store.group('events', 'byMerchantMode', merchantModeGroup(merchantId, mode))
  const position = ids.lastIndexOf(lastId)
  if (position < 0) return []
  return ids.slice(position + 1).map((eventId) => ctx.store.get('events', eventId)!)
}

/** The merchant's events of the caller's mode, newest first, with `starting_after` paging. */
export function listEvents(ctx: ServiceContext, caller: Caller, query: ListEventsQuery): EventList {
  const ids = ctx.store.group('events', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
  let end = ids.length
  if (query.starting_after !== undefined) {
    end = ids.lastIndexOf(query.starting_after)
    if (end < 0) throw invalidRequest('starting_after is not an event of this merchant and mode.', 'starting_after')
  }
  const limit = query.limit ?? 10
  const data = []
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
