import type { Request, Router } from 'express'
import {
  EVENT_TYPES,
  createWebhookEndpointRequestSchema,
  listEventsQuerySchema,
  resendEventRequestSchema,
  type Delivery,
  type DeliveryAttempt,
  type Event,
  type ListEventsQuery,
  type WebhookEndpoint,
} from '../../../../src/schemas/index.js'
import { SECRET_OVERLAP_MS, isSuccess } from '../../../domain/webhook-endpoint.js'
import { getEvent, listEvents, resendEvent } from '../../../events/event-log.js'
import { deleteEndpoint, listEndpoints, registerEndpoint, rotateEndpointSecret } from '../../../services/webhook-endpoints.js'
import type { SafeHtml } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { dashPath, type Dash, type DashboardKit, type PageHandler } from '../kit.js'
import { formatTime } from '../../../../src/time.js'
import { plural } from '../../../../src/plural.js'

const OVERLAP_HOURS = SECRET_OVERLAP_MS / 3_600_000
const EVENTS_PAGE_SIZE = 25
/** How far back the Webhooks page looks for deliveries: there is no per-endpoint index, so it reads the latest events'. */
const RECENT_EVENTS = 20
const RECENT_DELIVERIES = 15
/** The response body shown in a table cell; the event's page keeps what the service stored (500 characters). */
const RESPONSE_PREVIEW = 120

const endpointPath = (id: string, action: 'rotate' | 'delete'): string => `/webhooks/${encodeURIComponent(id)}/${action}`
const eventPath = (id: string): string => `/events/${encodeURIComponent(id)}`


/** What one attempt came to: the receiver's status, or why no response came. */
const outcomeOf = (attempt: DeliveryAttempt): string => (attempt.status === null ? (attempt.error ?? 'no response') : `HTTP ${attempt.status}`)

/** A line for a set of deliveries (an event's, or one): "2 attempts, last HTTP 200". */
function deliverySummary(deliveries: readonly Delivery[]): string {
  if (deliveries.length === 0) return 'Not delivered: no active endpoint'
  const attempts = deliveries.flatMap((delivery) => delivery.attempts).sort((a, b) => a.at - b.at)
  const last = attempts.at(-1)
  const pending = deliveries.some((delivery) => delivery.status === 'pending')
  if (!last) return pending ? 'Queued' : 'Cancelled before any attempt'
  return `${plural(attempts.length, 'attempt')}, last ${outcomeOf(last)}${pending ? ', more pending' : ''}`
}

const objectIdOf = (event: Event): string => {
  const id = event.data.object.id
  return typeof id === 'string' ? id : '—'
}

/** The names of the events list's query in the address. */
const EVENTS_QUERY = ['type', 'limit', 'starting_after']

/** The events list's query from the address: an empty type is "all types". */
function eventsQueryOf(req: Request): ListEventsQuery {
  const text = (name: string): string | undefined => {
    const value = req.query[name]
    return typeof value === 'string' && value !== '' ? value : undefined
  }
  return parseWith(
    listEventsQuerySchema,
    { type: text('type'), limit: text('limit') ?? String(EVENTS_PAGE_SIZE), starting_after: text('starting_after') },
    'query',
  )
}

/** A page of events (the list, or its live-refreshed rows), leaving out what is the default. */
const eventsPath = (path: string, query: ListEventsQuery): string =>
  dashPath(path, {
    type: query.type,
    limit: query.limit === undefined || query.limit === EVENTS_PAGE_SIZE ? undefined : String(query.limit),
    starting_after: query.starting_after,
  })

/** Webhooks (endpoints, their secrets, recent deliveries) and Events (the log, each event's attempts, resend). */
export function registerWebhooksPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const attemptResult = (attempt: DeliveryAttempt): SafeHtml => kit.badge(outcomeOf(attempt), isSuccess(attempt) ? 'ok' : 'bad')

  const endpointActions = (dash: Dash, endpoint: WebhookEndpoint): SafeHtml =>
    kit.render('webhook-actions', {
      forms: kit.join([
        kit.form(dash, { action: endpointPath(endpoint.id, 'rotate'), submit: 'Rotate secret', style: 'secondary' }),
        kit.form(dash, {
          action: endpointPath(endpoint.id, 'delete'),
          submit: 'Delete',
          style: 'danger',
          confirm: `Delete the endpoint ${endpoint.url}? It receives no more events.`,
        }),
      ]),
    })

  kit.page(router, '/webhooks', (_req, dash) => {
    const { mode } = dash.caller
    const endpoints = listEndpoints(ctx, dash.caller)
    const recentEvents = listEvents(ctx, dash.caller, { limit: RECENT_EVENTS }).data
    const recent = recentEvents
      .flatMap((event) => getEvent(ctx, dash.caller, event.event_id).deliveries.map((delivery) => ({ event, delivery })))
      .sort((a, b) => b.delivery.createdAt - a.delivery.createdAt)
      .slice(0, RECENT_DELIVERIES)
    return {
      title: 'Webhooks',
      section: 'webhooks',
      content: kit.render('webhooks-page', {
        mode,
        endpoints: kit.table(
          ['URL', 'Status', 'Created', 'Previous secret', 'Actions'],
          endpoints.map((endpoint) => [
            kit.render('webhook-url', { url: endpoint.url }),
            kit.statusBadge(endpoint.status),
            formatTime(endpoint.createdAt),
            endpoint.previousSecretExpiresAt === null ? 'None' : `Verifies until ${formatTime(endpoint.previousSecretExpiresAt)}`,
            endpointActions(dash, endpoint),
          ]),
          `No webhook endpoints in ${mode} mode yet.`,
        ),
        addForm: kit.form(dash, {
          action: '/webhooks',
          submit: 'Add endpoint',
          className: 'stack-form compact wide',
          fields: kit.render('webhook-url-field', {
            url: kit.typed(dash, '/webhooks')?.url ?? '',
            hint: mode === 'test' ? 'HTTPS, or http on localhost, 127.0.0.1 or [::1] in test mode.' : 'HTTPS only in live mode.',
          }),
        }),
        eventCount: RECENT_EVENTS,
        deliveries: kit.table(
          ['Endpoint', 'Event', 'Type', 'Status', 'Attempts'],
          recent.map(({ event, delivery }) => [
            kit.render('webhook-url', { url: delivery.url }),
            kit.link(eventPath(event.event_id), event.event_id),
            event.type,
            kit.statusBadge(delivery.status),
            deliverySummary([delivery]),
          ]),
          `No deliveries in ${mode} mode yet.`,
        ),
      }),
    }
  })

  kit.action(router, '/webhooks', (_req, dash, input) => {
    const endpoint = registerEndpoint(ctx, dash.caller, parseWith(createWebhookEndpointRequestSchema, { url: input.fields.url?.trim() }))
    return {
      redirect: dashPath('/webhooks'),
      flash: {
        tone: 'ok',
        text: `Added ${endpoint.url} for ${endpoint.mode} mode. It is pending until it answers the webhook.verified check with a 2xx. Its signing secret:`,
        secret: endpoint.secret,
      },
    }
  })

  kit.action(router, '/webhooks/:id/rotate', (req, dash) => {
    const endpoint = rotateEndpointSecret(ctx, dash.caller, String(req.params.id))
    const until = endpoint.previousSecretExpiresAt === null ? '' : ` until ${formatTime(endpoint.previousSecretExpiresAt)}`
    return {
      redirect: dashPath('/webhooks'),
      flash: {
        tone: 'ok',
        text: `New signing secret for ${endpoint.url}. The old secret keeps verifying${until} (${OVERLAP_HOURS} hours on this merchant's clock): deliveries carry both signatures meanwhile, so you can deploy the new one first.`,
        secret: endpoint.secret,
      },
    }
  })

  kit.action(router, '/webhooks/:id/delete', (req, dash) => {
    const { id } = deleteEndpoint(ctx, dash.caller, String(req.params.id))
    return {
      redirect: dashPath('/webhooks'),
      flash: { tone: 'ok', text: `Deleted endpoint ${id}: it receives no more events, and its pending deliveries are cancelled.` },
    }
  })

  /** The events table and its pager: the page shows it, and live refresh fetches it again. */
  const eventRows = (dash: Dash, query: ListEventsQuery): SafeHtml => {
    const { data, hasMore } = listEvents(ctx, dash.caller, query)
    const pages: { label: string; href: string }[] = []
    const pageLink = (label: string, startingAfter: string | undefined) => ({ label, href: eventsPath('/events', { ...query, starting_after: startingAfter }) })
    if (query.starting_after !== undefined) pages.push(pageLink('Newest events', undefined))
    if (hasMore) pages.push(pageLink('Older events', data.at(-1)!.event_id))
    return kit.render('events-rows', {
      table: kit.table(
        ['Event', 'Type', 'Object', 'Created', 'Deliveries'],
        data.map((event) => [
          kit.link(eventPath(event.event_id), event.event_id),
          event.type,
          objectIdOf(event),
          formatTime(event.createdAt),
          deliverySummary(getEvent(ctx, dash.caller, event.event_id).deliveries),
        ]),
        query.type === undefined ? `No events in ${dash.caller.mode} mode yet.` : `No ${query.type} events in ${dash.caller.mode} mode.`,
      ),
      pager: kit.pager('events', pages),
    })
  }

  const eventsPage: PageHandler = (req, dash) => {
    const query = eventsQueryOf(req)
    const options = kit.options([{ value: '', label: 'All types' }, ...EVENT_TYPES.map((type) => ({ value: type, label: type }))], query.type ?? '')
    return {
      title: 'Events',
      section: 'events',
      content: kit.render('events-page', {
        mode: dash.caller.mode,
        filter: kit.render('events-filter', { action: dashPath('/events'), options }),
        rowsUrl: eventsPath('/events/rows', query),
        rows: eventRows(dash, query),
      }),
    }
  }
  kit.page(router, '/events', eventsPage, { query: EVENTS_QUERY, values: eventsQueryOf })

  // The live refresh's source: a fragment, not a page of the layout, but still only with a session.
  kit.resource(
    router,
    '/events/rows',
    (req, res, dash) => {
      res.type('html').send(eventRows(dash, eventsQueryOf(req)).html)
    },
    { query: EVENTS_QUERY, values: eventsQueryOf },
  )

  kit.page(router, '/events/:id', (req, dash) => {
    const { event, deliveries } = getEvent(ctx, dash.caller, String(req.params.id))
    const attempts = deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => ({ delivery, attempt }))).sort((a, b) => a.attempt.at - b.attempt.at)
    const endpoints = listEndpoints(ctx, dash.caller)
    return {
      title: `${event.type} ${event.event_id}`,
      section: 'events',
      content: kit.render('event-page', {
        back: kit.link('/events', 'Back to Events'),
        id: event.event_id,
        type: event.type,
        mode: event.mode,
        created: formatTime(event.createdAt),
        objectId: objectIdOf(event),
        payload: JSON.stringify(event, null, 2),
        deliveries: kit.table(
          ['Endpoint', 'Status', 'Attempts', 'Next attempt', 'Queued'],
          deliveries.map((delivery) => [
            kit.render('webhook-url', { url: delivery.url }),
            kit.statusBadge(delivery.status),
            String(delivery.attempts.length),
            delivery.nextAttemptAt === null ? '—' : formatTime(delivery.nextAttemptAt),
            formatTime(delivery.createdAt),
          ]),
          'No deliveries: no endpoint was active when this event happened.',
        ),
        attempts: kit.table(
          ['Endpoint', 'Time', 'Result', 'Latency', 'Response'],
          attempts.map(({ delivery, attempt }) => [
            kit.render('webhook-url', { url: delivery.url }),
            formatTime(attempt.at, { seconds: true }),
            attemptResult(attempt),
            `${attempt.latencyMs} ms`,
            attempt.response.length > RESPONSE_PREVIEW ? `${attempt.response.slice(0, RESPONSE_PREVIEW)}…` : attempt.response,
          ]),
          'No attempts yet.',
        ),
        resendAll: kit.form(dash, {
          action: `${eventPath(event.event_id)}/resend`,
          submit: 'Resend to every endpoint',
          confirm: `Send ${event.event_id} again to every active ${dash.caller.mode} endpoint?`,
        }),
        resend: kit.table(
          ['Endpoint', 'Status', 'Resend'],
          endpoints.map((endpoint) => [
            kit.render('webhook-url', { url: endpoint.url }),
            kit.statusBadge(endpoint.status),
            kit.form(dash, {
              action: `${eventPath(event.event_id)}/resend`,
              submit: 'Resend',
              style: 'secondary',
              fields: kit.render('hidden', { name: 'endpointId', value: endpoint.id }),
            }),
          ]),
          `No endpoints in ${dash.caller.mode} mode to send it to: add one on the Webhooks page.`,
        ),
      }),
    }
  })

  kit.action(router, '/events/:id/resend', async (req, dash, input) => {
    const id = String(req.params.id)
    const { endpointId } = parseWith(resendEventRequestSchema, { endpointId: input.fields.endpointId })
    const deliveries = await resendEvent(ctx, dash.caller, id, endpointId)
    const details = deliveries.map((delivery) => {
      const last = delivery.attempts.at(-1)
      return `${delivery.url}: ${last ? `${outcomeOf(last)} in ${last.latencyMs} ms` : `queued as ${delivery.id}, its attempt shows below in a moment`}`
    })
    return {
      redirect: dashPath(eventPath(id)),
      flash: {
        tone: 'ok',
        text: deliveries.length === 0 ? `Nothing to resend ${id} to: no endpoint is active.` : `Sent ${id} again, same event id:`,
        details,
      },
    }
  })
}
