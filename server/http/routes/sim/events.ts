import { Router } from 'express'
import {
  emailListSchema,
  eventListSchema,
  eventWithDeliveriesSchema,
  listEventsQuerySchema,
  requestLogQuerySchema,
  requestLogSchema,
  resendEventRequestSchema,
  resendEventResponseSchema,
} from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { presentDelivery } from '../../../domain/webhook-endpoint.js'
import { getEvent, listEvents, resendEvent } from '../../../events/event-log.js'
import { listEmails } from '../../../services/outbox.js'
import { apiRouter, apiRoutes } from '../../api-route.js'
import { serveEventStream, serveRequestLogStream } from '../event-stream.js'

/** `/_sim/events`, `/_sim/logs` and `/_sim/emails`: what happened, in the key's mode, as lists and as streams. */
export function eventsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'get',
      path: '/events/stream',
      summary: 'The merchant\'s events of the key\'s mode as Server-Sent Events',
      description: 'Reconnecting with `Last-Event-ID` replays the events missed since that id.',
      auth: 'secret',
      response: {
        contentType: 'text/event-stream',
        description: 'One message per event: `id` the event id, `event` its type, `data` its payload (Event).',
      },
    },
    (input) => serveEventStream(ctx, input),
  )
  route(
    {
      method: 'get',
      path: '/logs/stream',
      summary: 'The merchant\'s API calls of the key\'s mode as Server-Sent Events',
      description: 'Each request the merchant makes in the key\'s mode, as it is answered: method, path, status, latency and request id.',
      auth: 'secret',
      query: requestLogQuerySchema,
      response: { contentType: 'text/event-stream', description: 'One `request` message per finished call; `data` is a RequestLogEntry.' },
    },
    (input) => serveRequestLogStream(ctx, input),
  )
  route(
    { method: 'get', path: '/logs', summary: 'The request log of the key\'s mode', description: 'The merchant\'s recent requests, newest first, filtered by status (`404` or `4xx`) and path prefix.', auth: 'secret', query: requestLogQuerySchema, response: { body: requestLogSchema } },
    ({ caller, query }) => ({ body: { data: ctx.requestLog.list(caller.merchant.id, caller.mode, query) } }),
  )
  route(
    { method: 'get', path: '/events/:id', summary: 'An event with its deliveries', description: 'The event as receivers got it, with every delivery attempt to every endpoint: status, response code, duration and the next retry.', auth: 'secret', response: { body: eventWithDeliveriesSchema } },
    ({ caller, params }) => ({ body: getEvent(ctx, caller, params.id!) }),
  )
  route(
    {
      method: 'post',
      path: '/events/:id/resend',
      summary: 'Deliver an event again, to one endpoint or every active one',
      description: 'Sends the event again with a new signature and the same event id, as a receiver\'s de-duplication must expect. As a first delivery: `webhook.verified` only to the endpoint it verifies (another `endpointId` is 400), any other event only to active endpoints (a pending `endpointId` is 409 `invalid_state`).',
      auth: 'secret',
      body: resendEventRequestSchema,
      response: { body: resendEventResponseSchema },
      errors: ['invalid_state'],
    },
    ({ caller, params, body }) => ({ body: { deliveries: resendEvent(ctx, caller, params.id!, body.endpointId).map(presentDelivery) } }),
  )
  route(
    { method: 'get', path: '/events', summary: 'Events of the key\'s mode, newest first', description: 'Filtered by `type`, paged with `limit` and `starting_after` (an event id).', auth: 'secret', query: listEventsQuerySchema, response: { body: eventListSchema } },
    ({ caller, query }) => ({ body: listEvents(ctx, caller, query) }),
  )
  route({ method: 'get', path: '/emails', summary: 'The outbox of the key\'s mode, newest first', description: 'Every e-mail the simulator would have sent (receipts, invoices), with its HTML, text and attachments; nothing leaves the machine.', auth: 'secret', response: { body: emailListSchema } }, ({ caller }) => ({
    body: { data: listEmails(ctx, caller.merchant.id, caller.mode) },
  }))
  return router
}
