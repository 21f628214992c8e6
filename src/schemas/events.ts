import { z } from 'zod'
import { limitQuerySchema, modeSchema, timestampSchema } from './common.js'
import { EVENT_TYPES } from './enums.js'

export { EVENT_TYPES } from './enums.js'
export const eventTypeSchema = z.enum(EVENT_TYPES)
export type EventType = z.infer<typeof eventTypeSchema>

/** The webhook payload (docs/webhooks.md); `data.object` is the resource as the API returns it. */
export const eventSchema = z.object({
  event_id: z.string(),
  type: eventTypeSchema,
  mode: modeSchema,
  createdAt: timestampSchema,
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
})
export type Event = z.infer<typeof eventSchema>

export const listEventsQuerySchema = z.strictObject({
  type: eventTypeSchema.optional(),
  limit: limitQuerySchema().optional(),
  starting_after: z.string().min(1).max(100).optional(),
})
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>

export const eventListSchema = z.object({ data: z.array(eventSchema), hasMore: z.boolean() })
export type EventList = z.infer<typeof eventListSchema>

/** An e-mail the simulator "sent": it lands in the outbox instead (`GET /_sim/emails`). */
export const emailSchema = z.object({
  id: z.string(),
  mode: modeSchema,
  kind: z.enum(['receipt', 'invoice']),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  createdAt: timestampSchema,
  /** The object the e-mail is about, e.g. the Checkout Session id. */
  relatedId: z.string(),
  attachments: z.array(
    z.object({ filename: z.string(), contentType: z.string(), bytes: z.number().int(), contentBase64: z.string() }),
  ),
})
export type Email = z.infer<typeof emailSchema>
export const emailListSchema = z.object({ data: z.array(emailSchema) })
/** `POST /_sim/invoices/{id}/email`: what went into the outbox. */
export const emailResponseSchema = z.object({ email: emailSchema })
