import { z } from 'zod'
import { modeSchema, timestampSchema } from './common.js'
import { eventSchema } from './events.js'

export const createWebhookEndpointRequestSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
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
