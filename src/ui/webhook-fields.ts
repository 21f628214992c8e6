import type { Fields } from '../cli/fields.js'
import { formatTime, type Column } from '../cli/output.js'
import type { Delivery, DeliveryAttempt, Event, WebhookEndpoint, WebhookEndpointWithSecret } from '../schemas/index.js'
import { printable } from '../terminal-text.js'

/** How much of a receiver's answer fits on an attempt's line. */
const RESPONSE_CHARS = 60

export function webhookEndpointFields(endpoint: WebhookEndpoint | WebhookEndpointWithSecret): Fields {
  const fields: Fields = [
    ['id', endpoint.id],
    ['url', endpoint.url],
    ['mode', endpoint.mode],
    ['status', endpoint.status],
    ['created', formatTime(endpoint.createdAt)],
  ]
  if ('secret' in endpoint) fields.push(['signing secret', endpoint.secret])
  if (endpoint.previousSecretExpiresAt !== null) {
    fields.push(['previous secret', `keeps verifying until ${formatTime(endpoint.previousSecretExpiresAt)} (merchant's clock)`])
  }
  return fields
}

export const webhookEndpointColumns: ReadonlyArray<Column<WebhookEndpoint>> = [
  { header: 'ID', value: (endpoint) => endpoint.id },
  { header: 'URL', value: (endpoint) => endpoint.url },
  { header: 'MODE', value: (endpoint) => endpoint.mode },
  { header: 'STATUS', value: (endpoint) => endpoint.status },
  { header: 'CREATED', value: (endpoint) => formatTime(endpoint.createdAt) },
  { header: 'PREVIOUS SECRET UNTIL', value: (endpoint) => formatTime(endpoint.previousSecretExpiresAt) },
]

export const eventColumns: ReadonlyArray<Column<Event>> = [
  { header: 'ID', value: (event) => event.event_id },
  { header: 'TYPE', value: (event) => event.type },
  { header: 'OBJECT', value: (event) => describeObject(event.data.object) },
  { header: 'CREATED', value: (event) => formatTime(event.createdAt) },
]

export const deliveryColumns: ReadonlyArray<Column<Delivery>> = [
  { header: 'DELIVERY', value: (delivery) => delivery.id },
  { header: 'ENDPOINT', value: (delivery) => delivery.endpointId },
  { header: 'URL', value: (delivery) => delivery.url },
  { header: 'STATUS', value: (delivery) => delivery.status },
]

export function eventFields(event: Event): Fields {
  return [
    ['id', event.event_id],
    ['type', event.type],
    ['mode', event.mode],
    ['created', formatTime(event.createdAt)],
    ['object', describeObject(event.data.object)],
  ]
}

/** A delivery's summary line: where, its state, and when it is tried next (printable(): the URL is the merchant's). */
export function describeDelivery(delivery: Delivery): string {
  const next = delivery.nextAttemptAt === null ? '' : `, next attempt ${formatTime(delivery.nextAttemptAt)}`
  return printable(`${delivery.id} to ${delivery.url} (${delivery.endpointId}): ${delivery.status}${next}`)
}

export const attemptColumns: ReadonlyArray<Column<DeliveryAttempt & { number: number }>> = [
  { header: '#', value: (attempt) => String(attempt.number) },
  { header: 'TIME', value: (attempt) => formatTime(attempt.at, { seconds: true }) },
  { header: 'STATUS', value: (attempt) => (attempt.status === null ? `error: ${attempt.error ?? 'no answer'}` : String(attempt.status)) },
  { header: 'LATENCY', value: (attempt) => `${Math.round(attempt.latencyMs)} ms` },
  { header: 'RESPONSE', value: (attempt) => previewResponse(attempt.response) },
]

/** The start of an answer on one line. */
function previewResponse(response: string): string {
  const line = response.replace(/\s+/g, ' ').trim()
  return line.length > RESPONSE_CHARS ? `${line.slice(0, RESPONSE_CHARS - 1)}…` : line || '-'
}

/** `cs_123 (succeeded)`: the id and status of an event's object or a step's response. */
export function describeObject(object: unknown): string {
  if (typeof object !== 'object' || object === null) return '-'
  const { id, status } = object as { id?: unknown; status?: unknown }
  if (typeof id !== 'string') return '-'
  return typeof status === 'string' ? `${id} (${status})` : id
}
