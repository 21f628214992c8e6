import type { Request, Router } from 'express'
import { ApiError, invalidRequest } from '../../../../src/errors.js'

import {
  listCheckoutSessionsQuerySchema,
  sessionStatusSchema,
  type CheckoutSession,
  type CheckoutSessionList,
  type Event,
  type ListCheckoutSessionsQuery,
} from '../../../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../../../context.js'
import { PROVIDER_NAMES, isExpired, paymentStarted, type CheckoutSessionRecord } from '../../../domain/checkout-session.js'

import { listEvents } from '../../../events/event-log.js'
import { cancelSession, getSession, listSessions, sessionOfCaller } from '../../../services/checkout-sessions.js'
import { safe, type SafeHtml } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { dashPath, errorFlash, type Dash, type DashboardKit, type PageHandler } from '../kit.js'
import { formatTime } from '../../../../src/time.js'
import { formatFjd, formatMoney } from '../../../../src/money.js'

const PAGE_SIZE = 20
const DAY = 24 * 60 * 60 * 1000
/** How many events one call of listEvents reads while looking for those about an object. */
const EVENT_BATCH = 100

const sessionPath = (id: string): string => `/sessions/${encodeURIComponent(id)}`
const eventPath = (id: string): string => `/events/${encodeURIComponent(id)}`

/** The filter as the address has it (empty when absent), to fill the form back in and carry into page links. */
interface SessionsFilter {
  status: string
  from: string
  to: string
  limit: string
  cursor: string
}

/** The names of the filter in the address. */
const SESSIONS_QUERY: readonly (keyof SessionsFilter)[] = ['status', 'from', 'to', 'limit', 'cursor']

function filterOf(req: Request): SessionsFilter {
  const text = (name: keyof SessionsFilter): string => {
    const value = req.query[name]
    return typeof value === 'string' ? value.trim() : ''
  }
  return { status: text('status'), from: text('from'), to: text('to'), limit: text('limit'), cursor: text('cursor') }
}

/** The first millisecond of a date input's day (YYYY-MM-DD, UTC like every time on the dashboard). */
function startOfDay(value: string, param: 'from' | 'to'): number {
  const ms = Date.parse(`${value}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw invalidRequest(`\`${param}\` must be a date like 2026-03-01.`, param)
  }
  return ms
}

/** The API's list query for the form's values: dates become the day's first (from) or last (to) millisecond. */
function queryOf(filter: SessionsFilter): ListCheckoutSessionsQuery {
  const given = (value: string): string | undefined => (value === '' ? undefined : value)
  return parseWith(
    listCheckoutSessionsQuerySchema,
    {
      status: given(filter.status),
      from: filter.from === '' ? undefined : String(startOfDay(filter.from, 'from')),
      to: filter.to === '' ? undefined : String(startOfDay(filter.to, 'to') + DAY - 1),
      limit: given(filter.limit) ?? String(PAGE_SIZE),
      cursor: given(filter.cursor),
    },
    'query',
  )
}

/** The API says `cancelled` for both; the dashboard tells a session that ran out of time apart. */
const shownStatus = (session: CheckoutSessionRecord): string =>
  session.status === 'cancelled' && session.endedAt !== null && isExpired(session, session.endedAt) ? 'expired' : session.status

const amountOf = (session: CheckoutSession): string =>
  session.quote ? `${formatFjd(session.amount)} (quote ${formatMoney(session.quote.amount, session.quote.currency)})` : formatFjd(session.amount)

/**
 * Events of the caller's mode about any of `objectIds` (the object's `id`),
 * newest first. Events are recorded in time order, so the search stops at
 * the first one older than `since`, when the object came to be.
 */
export function eventsAbout(ctx: ServiceContext, caller: Caller, objectIds: readonly string[], since: number): Event[] {
  const wanted = new Set(objectIds)
  const found: Event[] = []
  let startingAfter: string | undefined
  for (;;) {
    const page = listEvents(ctx, caller, { limit: EVENT_BATCH, starting_after: startingAfter })
    for (const event of page.data) {
      if (event.createdAt < since) return found
      if (wanted.has(String(event.data.object.id))) found.push(event)
    }
    if (!page.hasMore) return found
    startingAfter = page.data.at(-1)!.event_id
  }
}

/** A table of events, each linked to its page on the Events section. */
export function eventsTable(kit: DashboardKit, events: readonly Event[], empty: string): SafeHtml {
  return kit.table(
    ['Event', 'Type', 'Object', 'Created'],
    events.map((event) => [kit.link(eventPath(event.event_id), event.event_id), event.type, String(event.data.object.id), formatTime(event.createdAt)]),
    empty,
  )
}

/** Checkout Sessions: the filterable list, one session with its payment intents and events, and cancelling it. */
export function registerSessionsPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const statusOptions = (selected: string): SafeHtml =>
    kit.options([{ value: '', label: 'All statuses' }, ...sessionStatusSchema.options.map((status) => ({ value: status, label: status }))], selected)

  const pager = (filter: SessionsFilter, nextCursor: string | null): SafeHtml => {
    const link = (label: string, cursor: string) => ({ label, href: dashPath('/sessions', { ...filter, cursor }) })
    const links = []
    if (filter.cursor !== '') links.push(link('First page', ''))
    if (nextCursor !== null) links.push(link('Next page', nextCursor))
    return kit.pager('Checkout Sessions', links)
  }

  const listPage: PageHandler = (req, dash) => {
    const { mode } = dash.caller
    const filter = filterOf(req)
    let list: CheckoutSessionList | undefined
    let problem: ApiError | undefined
    try {
      list = listSessions(ctx, dash.caller, queryOf(filter))
    } catch (error) {
      // A bad filter value keeps the form on screen, with what is wrong above the list.
      if (!(error instanceof ApiError)) throw error
      problem = error
    }
    const filtered = filter.status !== '' || filter.from !== '' || filter.to !== ''
    return {
      title: 'Checkout Sessions',
      section: 'sessions',
      status: problem?.status,
      content: kit.render('sessions-page', {
        mode,
        filter: kit.render('sessions-filter', {
          action: dashPath('/sessions'),
          statusOptions: statusOptions(filter.status),
          from: filter.from,
          to: filter.to,
          limit: filter.limit === '' ? String(PAGE_SIZE) : filter.limit,
          clear: dashPath('/sessions'),
        }),
        problem: problem ? kit.flash(errorFlash(problem)!) : safe(''),
        table: list
          ? kit.table(
              ['Session', 'Amount', 'Status', 'Invoice', 'Created', 'Expires'],
              list.data.map((session) => [
                kit.link(sessionPath(session.id), session.id),
                amountOf(session),
                kit.statusBadge(shownStatus(sessionOfCaller(ctx, dash.caller, session.id))),
                session.invoiceNumber ?? '—',
                formatTime(session.createdAt),
                formatTime(session.expiresAt),
              ]),
              filtered ? `No Checkout Sessions in ${mode} mode match this filter.` : `No Checkout Sessions in ${mode} mode yet.`,
            )
          : safe(''),
        pager: list ? pager(filter, list.nextCursor) : safe(''),
      }),
    }
  }
  kit.page(router, '/sessions', listPage, { query: SESSIONS_QUERY, values: (req) => queryOf(filterOf(req)) })

  const cancelForm = (dash: Dash, session: CheckoutSession): SafeHtml =>
    kit.form(dash, {
      action: `${sessionPath(session.id)}/cancel`,
      submit: 'Cancel session',
      style: 'danger',
      confirm: `Cancel ${session.id}? The customer can no longer pay it.`,
    })

  kit.page(router, '/sessions/:id', (req, dash) => {
    const id = String(req.params.id)
    const session = getSession(ctx, dash.caller, id)
    const record = sessionOfCaller(ctx, dash.caller, id)
    const intents = record.paymentIntentIds.map((intentId) => ctx.store.get('paymentIntents', intentId)).filter((intent) => intent !== undefined)
    const status = shownStatus(record)
    const note =
      status === 'expired'
        ? `Cancelled when it expired, ${formatTime(session.expiresAt)}.`
        : record.status === 'pending' && paymentStarted(record)
          ? 'The customer has started paying, so it can no longer be cancelled.'
          : ''
    const quote = session.quote
    return {
      title: `Checkout Session ${session.id}`,
      section: 'sessions',
      content: kit.render('session-page', {
        back: kit.link('/sessions', '← All Checkout Sessions'),
        id: session.id,
        status: kit.statusBadge(status),
        note,
        cancel: record.status === 'pending' && !paymentStarted(record) ? cancelForm(dash, session) : safe(''),
        amount: formatFjd(session.amount),
        currency: session.currency,
        quote: quote ? `${formatMoney(quote.amount, quote.currency)} at ${quote.rate} FJD/${quote.currency} (rate of ${formatTime(quote.asOf)})` : 'None',
        mode: session.mode,
        hostedUrl: session.hostedUrl,
        successUrl: session.successUrl ?? 'None',
        cancelUrl: session.cancelUrl ?? 'None',
        invoiceNumber: session.invoiceNumber ?? 'None',
        customerEmail: record.customerEmail ?? (session.mode === 'test' ? 'None (test mode keeps no address)' : 'None'),
        created: formatTime(session.createdAt),
        expires: formatTime(session.expiresAt),
        ended: record.endedAt === null ? 'Not yet' : formatTime(record.endedAt),
        metadata: kit.table(['Key', 'Value'], Object.entries(session.metadata).map((pair) => pair.map((text) => kit.freeText(text))), 'No metadata.'),
        intents: kit.table(
          ['Payment intent', 'Provider', 'Status', 'Amount', 'Created', 'Updated', 'Failure'],
          intents.map((intent) => [
            intent.id,
            PROVIDER_NAMES[intent.provider],
            kit.statusBadge(intent.status),
            formatFjd(intent.amount),
            formatTime(intent.createdAt),
            formatTime(intent.updatedAt),
            intent.failureReason ?? '—',
          ]),
          'No payment started yet.',
        ),
        events: eventsTable(kit, eventsAbout(ctx, dash.caller, [session.id, ...record.paymentIntentIds], session.createdAt), 'No events about it yet.'),
      }),
    }
  })

  kit.action(router, '/sessions/:id/cancel', (req, dash) => {
    const session = cancelSession(ctx, dash.caller, String(req.params.id))
    return { redirect: dashPath(sessionPath(session.id)), flash: { tone: 'ok', text: `Cancelled ${session.id}: the customer can no longer pay it.` } }
  })
}
