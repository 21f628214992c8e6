import type { Request, Router } from 'express'
import { z } from 'zod'
import {
  checkoutSessionSchema,
  integerQuerySchema,
  payoutSchema,
  type Event,
  type EventType,
  type Payout,
} from '../../../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../../../context.js'

import { DISBURSEMENT_HOUR_UTC } from '../../../domain/payout.js'
import { listEvents } from '../../../events/event-log.js'
import { getPayout, listPayouts, requestPayout } from '../../../services/payouts.js'
import { safe } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { renderBalanceChart } from '../chart.js'
import { dashPath, type DashboardKit, type PageHandler } from '../kit.js'
import { formatTime } from '../../../../src/time.js'
import { eventsAbout, eventsTable } from './sessions.js'
import { formatFjd } from '../../../../src/money.js'

const PAGE_SIZE = 25
/** The most the services hand out per call; the chart needs every record, so it reads in batches of this. */
const BATCH = 100
/** The chart's data table lists the latest changes only; the chart itself shows all of them. */
const TABLE_ROWS = 50

const RAILS: Record<Payout['rail'], string> = { bank_transfer: 'Bank transfer', wallet: 'Wallet' }

const payoutsQuerySchema = z.strictObject({ page: integerQuerySchema('page', { min: 1 }).optional() })

/** The list's page from the address; a bad one is 400 naming it. */
const pageOf = (req: Request): number => parseWith(payoutsQuerySchema, req.query, 'query').page ?? 1

const payoutPath = (id: string): string => `/payouts/${encodeURIComponent(id)}`

/** Every Payout of the caller's mode, oldest first, as the service pages them. */
function allPayouts(ctx: ServiceContext, caller: Caller): Payout[] {
  const payouts: Payout[] = []
  for (;;) {
    const page = listPayouts(ctx, caller, { limit: BATCH, starting_after: payouts.at(-1)?.id })
    payouts.push(...page.data)
    if (!page.hasMore) return payouts
  }
}

/** Every event of one type in the caller's mode, newest first. */
function eventsOfType(ctx: ServiceContext, caller: Caller, type: EventType): Event[] {
  const events: Event[] = []
  for (;;) {
    const page = listEvents(ctx, caller, { type, limit: BATCH, starting_after: events.at(-1)?.event_id })
    events.push(...page.data)
    if (!page.hasMore) return events
  }
}

interface BalanceChange {
  at: number
  change: number
  /** The balance right after this change. */
  balance: number
  what: string
  id: string
}

/**
 * The mode's balance over time, rebuilt from what changes it (docs/simulator.md, "Balance, settlement and Payouts"):
 * a succeeded payment raises it, a Payout sweeps it, and a failed Payout's
 * amount comes back. The events and Payouts record each at its time.
 */
function balanceHistory(ctx: ServiceContext, caller: Caller, payouts: readonly Payout[]): BalanceChange[] {
  // An event's object is any JSON object to the store and to a state import (which checks its depth, not its
  // shape), so one that is not a session or Payout is left out of the chart rather than failing the page.
  const payments = eventsOfType(ctx, caller, 'checkout_session.succeeded').flatMap((event) => {
    const session = checkoutSessionSchema.safeParse(event.data.object)
    if (!session.success) return []
    const { invoiceNumber, amount, id } = session.data
    return [{ at: event.createdAt, change: amount, what: invoiceNumber === undefined ? 'Payment' : `Payment of invoice ${invoiceNumber}`, id }]
  })
  const returned = eventsOfType(ctx, caller, 'disbursement.failed').flatMap((event) => {
    const payout = payoutSchema.safeParse(event.data.object)
    return payout.success ? [{ at: event.createdAt, change: payout.data.amount, what: 'Failed payout returned', id: payout.data.id }] : []
  })
  const sweeps = payouts.map((payout) => ({ at: payout.createdAt, change: -payout.amount, what: 'Payout', id: payout.id }))
  // A stable sort keeps money coming in ahead of a sweep in the same millisecond: the sweep took it.
  const ordered = [...payments, ...returned, ...sweeps].sort((a, b) => a.at - b.at)
  let balance = 0
  return ordered.map((change) => ({ ...change, balance: (balance += change.change) }))
}

/** Where a Payout is: paid, failed and why, or still on its way. */
function progressOf(payout: Payout): string {
  if (payout.status === 'paid') return `Paid ${formatTime(payout.paidAt!)}`
  if (payout.status === 'failed') return payout.failureReason ?? 'Failed'
  return payout.sentAt === null ? `Waiting for the disbursement run (${DISBURSEMENT_HOUR_UTC}:00 UTC)` : `Sent ${formatTime(payout.sentAt)}, arriving`
}

/** Payouts: the balance, the schedule, a manual request, the balance chart and every Payout. */
export function registerPayoutsPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  const listPage: PageHandler = (req, dash) => {
    const { merchant, mode } = dash.caller
    const page = pageOf(req)
    const schedule = merchant.settings.payoutSchedule
    const balance = merchant.balances[mode]
    const payouts = allPayouts(ctx, dash.caller)
    const history = balanceHistory(ctx, dash.caller, payouts)
    const newestFirst = [...payouts].reverse()
    const shown = newestFirst.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
    const pageLinks: { label: string; href: string }[] = []
    if (page > 1) pageLinks.push({ label: 'Newer payouts', href: dashPath('/payouts', { page: page === 2 ? undefined : String(page - 1) }) })
    if (page * PAGE_SIZE < newestFirst.length) pageLinks.push({ label: 'Older payouts', href: dashPath('/payouts', { page: String(page + 1) }) })
    return {
      title: 'Payouts',
      section: 'payouts',
      content: kit.render('payouts-page', {
        mode,
        balance: formatFjd(balance),
        schedule: schedule[0]!.toUpperCase() + schedule.slice(1),
        scheduleNote:
          schedule === 'manual'
            ? kit.render('payouts-manual-note', {})
            : kit.render('payouts-scheduled-note', { settings: kit.link('/settings', 'Settings') }),
        request:
          schedule === 'manual'
            ? kit.render('payouts-request', {
                mode,
                form: kit.form(dash, {
                  action: '/payouts/request',
                  submit: 'Request payout now',
                  confirm: `Pay out the whole ${mode} balance of ${formatFjd(balance)} now?`,
                }),
              })
            : safe(''),
        chart: renderBalanceChart({
          id: 'balance-chart',
          title: `Balance and payouts over time, ${mode} mode`,
          balance: history.map((change) => ({ at: change.at, amount: change.balance })),
          payouts: payouts.map((payout) => ({ at: payout.createdAt, amount: payout.amount })),
          end: dash.now,
          emptyText: `No payments or payouts in ${mode} mode yet: the chart starts with the first succeeded payment.`,
        }),
        chartTable:
          history.length === 0
            ? safe('')
            : kit.render('payouts-chart-table', {
                note:
                  history.length > TABLE_ROWS
                    ? `The latest ${TABLE_ROWS} of ${history.length} changes, newest first.`
                    : 'Every change, newest first.',
                table: kit.table(
                  ['When', 'What', 'Change', 'Balance after'],
                  history
                    .slice(-TABLE_ROWS)
                    .reverse()
                    .map((change) => [
                      formatTime(change.at),
                      `${change.what} ${change.id}`,
                      `${change.change > 0 ? '+' : ''}${formatFjd(change.change)}`,
                      formatFjd(change.balance),
                    ]),
                  'No changes.',
                ),
              }),
        table: kit.table(
          ['Payout', 'Amount', 'Status', 'Rail', 'Created', 'Paid or failed'],
          shown.map((payout) => [
            kit.link(payoutPath(payout.id), payout.id),
            formatFjd(payout.amount),
            kit.statusBadge(payout.status),
            RAILS[payout.rail],
            formatTime(payout.createdAt),
            progressOf(payout),
          ]),
          page === 1 ? `No payouts in ${mode} mode yet.` : 'No payouts on this page.',
        ),
        pager: kit.pager('payouts', pageLinks),
      }),
    }
  }
  kit.page(router, '/payouts', listPage, { query: Object.keys(payoutsQuerySchema.shape), values: pageOf })

  kit.page(router, '/payouts/:id', (req, dash) => {
    const payout = getPayout(ctx, dash.caller, String(req.params.id))
    return {
      title: `Payout ${payout.id}`,
      section: 'payouts',
      content: kit.render('payout-page', {
        back: kit.link('/payouts', '← All payouts'),
        id: payout.id,
        status: kit.statusBadge(payout.status),
        amount: formatFjd(payout.amount),
        rail: RAILS[payout.rail],
        mode: payout.mode,
        created: formatTime(payout.createdAt),
        sent: payout.sentAt === null ? 'Not yet' : formatTime(payout.sentAt),
        paid: payout.paidAt === null ? 'Not yet' : formatTime(payout.paidAt),
        failureReason: payout.failureReason ?? 'None',
        events: eventsTable(kit, eventsAbout(ctx, dash.caller, [payout.id], payout.createdAt), 'No events about it yet.'),
      }),
    }
  })

  kit.action(router, '/payouts/request', (_req, dash) => {
    const payout = requestPayout(ctx, dash.caller)
    const outcome =
      payout.status === 'paid'
        ? 'paid at once (test mode).'
        : `pending until the daily disbursement run (${DISBURSEMENT_HOUR_UTC}:00 UTC) sends it.`
    return {
      redirect: dashPath('/payouts'),
      flash: { tone: 'ok', text: `Payout ${payout.id} of ${formatFjd(payout.amount)} requested: ${outcome}` },
    }
  })
}
