import type { Event } from '../../src/schemas/index.js'
import type { EventRecord } from '../domain/records.js'

export type { EventRecord } from '../domain/records.js'

/** The webhook payload (docs/webhooks.md). */
export const eventPayload = (event: EventRecord): Event => ({
  event_id: event.id,
  type: event.type,
  mode: event.mode,
  createdAt: event.createdAt,
  data: { object: event.object },
})
