import { apiError } from '../../../domain/error-catalog.js'
import type { Router } from 'express'
import { parseDuration, formatDuration } from '../../../../src/duration.js'
import { advanceClockRequestSchema } from '../../../../src/schemas/index.js'

import { listSessions } from '../../../services/checkout-sessions.js'
import { parseWith } from '../../validate.js'
import type { DashboardKit } from '../kit.js'
import { formatTime } from '../../../../src/time.js'
import { formatFjd } from '../../../../src/money.js'

/** The one-click advances; anything else goes through the custom field. */
const QUICK_ADVANCES = ['1h', '1d', '1w'] as const

/** Overview: balance, payout schedule and next run, the merchant's clock and its advance controls. */
export function registerOverviewPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit
  kit.page(router, '/', (_req, dash) => {
    const { merchant, mode } = dash.caller
    const schedule = merchant.settings.payoutSchedule
    const job = merchant.settlementJobId === null ? undefined : ctx.store.get('jobs', merchant.settlementJobId)
    const nextRun =
      schedule === 'manual' ? 'Payouts only when you request them (Payouts page).' : job ? `Next settlement run ${formatTime(job.dueAt)}` : 'No run scheduled.'
    const offset = ctx.clock.offset(merchant.id)
    const advanceButtons = QUICK_ADVANCES.map((duration) =>
      kit.form(dash, {
        action: '/clock/advance',
        submit: `+${duration}`,
        fields: kit.render('hidden', { name: 'duration', value: duration }),
        style: 'secondary',
      }),
    )
    const sessions = listSessions(ctx, dash.caller, { limit: 5 }).data
    return {
      title: 'Overview',
      section: 'overview',
      content: kit.render('overview', {
        balance: formatFjd(merchant.balances[mode]),
        schedule: schedule[0]!.toUpperCase() + schedule.slice(1),
        nextRun,
        clock: formatTime(dash.now),
        offset: offset === 0 ? 'Running with real time.' : `${formatDuration(offset)} ahead of real time.`,
        advanceButtons: kit.join(advanceButtons),
        customAdvance: kit.form(dash, {
          action: '/clock/advance',
          submit: 'Advance',
          className: 'stack-form compact',
          fields: kit.render('advance-field', { duration: kit.typed(dash, '/clock/advance')?.duration ?? '' }),
        }),
        recentSessions: kit.table(
          ['Session', 'Amount', 'Status', 'Created'],
          sessions.map((session) => [
            kit.link(`/sessions/${encodeURIComponent(session.id)}`, session.id),
            formatFjd(session.amount),
            kit.statusBadge(session.status),
            formatTime(session.createdAt),
          ]),
          `No Checkout Sessions in ${mode} mode yet.`,
        ),
      }),
    }
  })

  kit.action(router, '/clock/advance', async (_req, dash, input) => {
    let ms: number
    try {
      ms = parseDuration(input.fields.duration ?? '')
    } catch (error) {
      throw apiError('invalid_request', error instanceof Error ? error.message : String(error), { param: 'duration' })
    }
    const result = await ctx.clock.advance(dash.caller.merchant.id, parseWith(advanceClockRequestSchema, { ms }), dash.caller.mode)
    const details = result.ran.map((action) => `${formatTime(action.at)} · ${action.description}`)
    return {
      redirect: dash.here,
      flash: {
        tone: 'ok',
        text: `Clock advanced by ${formatDuration(ms)} to ${formatTime(result.now)}. ${result.ran.length === 0 ? 'Nothing was due.' : `Ran ${result.ran.length}:`}`,
        details,
      },
    }
  })
}

