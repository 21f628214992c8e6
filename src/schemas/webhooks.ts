import { z } from 'zod'
import { httpsUrlSchema, modeSchema, timestampSchema } from './common.js'
import { eventSchema } from './events.js'

export const createWebhookEndpointRequestSchema = z.strictObject({
  url: httpsUrlSchema,
})
export type CreateWebhookEndpointRequest = z.infer<typeof createWebhookEndpointRequestSchema>

/** `pending` until it answers `webhook.verified` with a 2xx; only `active` endpoints hear other events. */
export const webhookEndpointStatusSchema = z.enum(['pending', 'active'])

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  mode: modeSchema,
  status: webhookEndpointStatusSchema,
  createdAt: timestampSchema,
  /** End of the previous secret's 72-hour overlap after a rotation, else null. */
  previousSecretExpiresAt: timestampSchema.nullable(),
})
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>

/** Register and rotate: the endpoint with its signing secret, shown this once. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema.extend({ secret: z.string() })
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>

export const webhookEndpointResponseSchema = z.object({ endpoint: webhookEndpointWithSecretSchema })
export const webhookEndpointListSchema = z.object({ data: z.array(webhookEndpointSchema) })
export const deletedWebhookEndpointSchema = z.object({ id: z.string(), deleted: z.literal(true) })
export type WebhookEndpointResponse = z.infer<typeof webhookEndpointResponseSchema>
export type WebhookEndpointList = z.infer<typeof webhookEndpointListSchema>
export type DeletedWebhookEndpoint = z.infer<typeof deletedWebhookEndpointSchema>

export const deliveryAttemptSchema = z.object({
  /** Merchant-clock time of the attempt. */
  at: timestampSchema,
  /** The Service-Timestamp sent (real Unix seconds). */
  signedAt: z.number().int(),
  /** HTTP status, or null when no response came (refused, timed out). */
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  latencyMs: z.number(),
  /** The first 500 characters of the response body. */
  response: z.string(),
})
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>

export const deliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed', 'cancelled'])

export const deliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  endpointId: z.string(),
  url: z.string(),
  status: deliveryStatusSchema,
  attempts: z.array(deliveryAttemptSchema),
  /** Merchant-clock time of the next retry while pending. */
  nextAttemptAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
})
export type Delivery = z.infer<typeof deliverySchema>

export const eventWithDeliveriesSchema = z.object({ event: eventSchema, deliveries: z.array(deliverySchema) })
export type EventWithDeliveries = z.infer<typeof eventWithDeliveriesSchema>

export const resendEventRequestSchema = z.strictObject({
  /** Only this endpoint; default every active endpoint of the event's mode. */
  endpointId: z.string().min(1).optional(),
})
export const resendEventResponseSchema = z.object({ deliveries: z.array(deliverySchema) })
export type ResendEventResponse = z.infer<typeof resendEventResponseSchema>

const share = z.number().min(0).max(1)
/** The longest a fault holds a delivery back: the most `delayMs`, and the most `reorderWindowMs`. */
export const MAX_FAULT_WAIT_MS = 60 * 60 * 1000

/**
 * Delivery faults for testing a receiver's resilience (per merchant and
 * mode). Each new delivery draws from a generator seeded with `seed`, so the
 * same run against a fresh simulator repeats the same faults.
 */
export const webhookFaultsRequestSchema = z.strictObject({
  seed: z.number().int().min(0).max(2 ** 32 - 1),
  /** Share of deliveries whose first attempt fails without reaching the receiver (then retried as usual). */
  fail: share.default(0),
  /** Share of deliveries sent twice, same event id. */
  duplicate: share.default(0),
  /** Share of deliveries held back by `delayMs`. */
  delay: share.default(0),
  delayMs: z.number().int().min(0).max(MAX_FAULT_WAIT_MS).default(5000),
  /** Share of deliveries held back by a random 0 to `reorderWindowMs`, so later events overtake them. */
  reorder: share.default(0),
  reorderWindowMs: z.number().int().min(1).max(MAX_FAULT_WAIT_MS).default(3000),
})
export type WebhookFaultsRequest = z.infer<typeof webhookFaultsRequestSchema>
export const webhookFaultsSchema = webhookFaultsRequestSchema.required().extend({
  /** How many deliveries have drawn from the generator so far. */
  drawn: z.number().int(),
})
export type WebhookFaults = z.infer<typeof webhookFaultsSchema>
export const webhookFaultsResponseSchema = z.object({ faults: webhookFaultsSchema.nullable() })
