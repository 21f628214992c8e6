import type { Event, EventType, Mode } from '../../src/schemas/index.js'

export interface EventRecord {
  id: string
  merchantId: string
  mode: Mode
  type: EventType
  createdAt: number
  object: Record<string, unknown>
}

/** The webhook payload (contract §8). */
export const eventPayload = (event: EventRecord): Event => ({
  event_id: event.id,
  type: event.type,
  mode: event.mode,
  createdAt: event.createdAt,
  data: { object: event.object },
})
