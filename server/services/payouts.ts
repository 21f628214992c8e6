import { apiError } from '../domain/error-catalog.js'
import { invalidRequest, notFound } from '../../src/errors.js'
import type { ListPayoutsQuery, Mode, Payout, PayoutList } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { requireLiveKey, type MerchantRecord } from '../domain/merchant.js'

import {
  TRANSFER_MS,
  nextDisbursementAt,
  nextSettlementAt,
  payoutModes,
  presentPayout,
  railFor,
  type PayoutRecord,
} from '../domain/payout.js'
import { recordEvent } from '../events/event-log.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'
import { DISBURSEMENT_JOB, TRANSFER_JOB, registerTargetedJob, scheduleTargetedJob } from '../clock/targeted-jobs.js'
import { formatFjd } from '../../src/money.js'

export const SETTLEMENT_JOB = 'settlement.run'

/**
 * Plans the merchant's next settlement run from its schedule, replacing any
 * planned one: the first run after `from` (now, unless an import moved the
 * clock past runs that are still to be made).
 */
export function scheduleSettlement(ctx: ServiceContext, merchantId: string, from = ctx.clock.now(merchantId)): void {
  const merchant = ctx.store.get('merchants', merchantId)
  if (!merchant) return
  if (merchant.settlementJobId !== null) ctx.clock.cancel(merchant.settlementJobId)
  const at = nextSettlementAt(merchant.settings.payoutSchedule, from)
  const job = at === null ? null : ctx.clock.schedule(merchantId, SETTLEMENT_JOB, at)
  ctx.store.put('merchants', { ...ctx.store.get('merchants', merchantId)!, settlementJobId: job?.id ?? null })
}

/**
 * Sweeps the mode's whole balance into one Payout at the merchant's current
 * time (the run time). Test mode: paid in the run. Live mode: pending until
 * the daily disbursement run sends it.
 */
function sweep(ctx: ServiceContext, merchant: MerchantRecord, mode: Mode): PayoutRecord | null {
  const amount = merchant.balances[mode]
  if (amount <= 0) return null
  const now = ctx.clock.now(merchant.id)
  const payout: PayoutRecord = {
    id: newId('po'),
    merchantId: merchant.id,
    mode,
    amount,
    rail: railFor(merchant.tier),
    status: mode === 'test' ? 'paid' : 'pending',
    paidAt: mode === 'test' ? now : null,
    sentAt: mode === 'test' ? now : null,
    failureReason: null,
    createdAt: now,
  }
  ctx.store.put('payouts', payout)
  const latest = ctx.store.get('merchants', merchant.id)!
  ctx.store.put('merchants', { ...latest, balances: { ...latest.balances, [mode]: 0 } })
  if (mode === 'test') recordEvent(ctx, merchant.id, mode, 'disbursement.sent', presentPayout(payout))
  else schedulePayoutJobs(ctx, payout)
  return payout
}

/**
 * A live Payout's next step on its merchant's clock, which follows from the
 * Payout alone: the daily disbursement run sends it, and the money arrives
 * an hour after it was sent.
 */
export function schedulePayoutJobs(ctx: ServiceContext, payout: PayoutRecord): void {
  if (payout.status !== 'pending') return
  if (payout.sentAt === null) scheduleTargetedJob(ctx, DISBURSEMENT_JOB, payout, nextDisbursementAt(payout.createdAt))
  else scheduleTargetedJob(ctx, TRANSFER_JOB, payout, payout.sentAt + TRANSFER_MS)
}

const describePayout = (payout: PayoutRecord): string => `${payout.mode} Payout ${payout.id} of ${formatFjd(payout.amount)}`

/** The dashboard's "pay out now", on the manual schedule only. */
export function requestPayout(ctx: ServiceContext, caller: Caller): Payout {
  const merchant = ctx.store.get('merchants', caller.merchant.id)!
  if (merchant.settings.payoutSchedule !== 'manual') {
    throw apiError('payout_schedule_not_manual', `Payouts follow the ${merchant.settings.payoutSchedule} schedule; set it to manual to request one.`)
  }
  const payout = sweep(ctx, merchant, caller.mode)
  if (!payout) throw apiError('no_balance', `The ${caller.mode} balance is zero: there is nothing to pay out.`)
  return presentPayout(payout)
}

/** A fault of live money: the next live transfer fails with `reason`. */
export function failNextPayout(ctx: ServiceContext, caller: Caller, reason: string): { nextPayoutFailure: string } {
  const merchant = ctx.store.get('merchants', caller.merchant.id)!
  requireLiveKey(merchant, caller.mode, 'A live payout fault')
  ctx.store.put('merchants', { ...merchant, nextPayoutFailure: reason })
  return { nextPayoutFailure: reason }
}

function ownPayout(ctx: ServiceContext, caller: Caller, id: string): PayoutRecord {
  const payout = ctx.store.get('payouts', id)
  if (!payout || payout.merchantId !== caller.merchant.id || payout.mode !== caller.mode) throw notFound('Payout')
  return payout
}

export const getPayout = (ctx: ServiceContext, caller: Caller, id: string): Payout => presentPayout(ownPayout(ctx, caller, id))

/** Oldest first; `starting_after` returns the Payouts after that id (spec). */
export function listPayouts(ctx: ServiceContext, caller: Caller, query: ListPayoutsQuery): PayoutList {
  const ids = ctx.store.group('payouts', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
  let start = 0
  if (query.starting_after !== undefined) {
    start = ids.indexOf(query.starting_after) + 1
    if (start === 0) throw invalidRequest('starting_after is not a Payout of this merchant and mode.', 'starting_after')
  }
  const end = start + (query.limit ?? 10)
  return { data: ids.slice(start, end).map((id) => presentPayout(ctx.store.get('payouts', id)!)), hasMore: end < ids.length }
}

export function registerPayoutJobs(ctx: ServiceContext): void {
  ctx.clock.register(SETTLEMENT_JOB, (job) => {
    const merchant = ctx.store.get('merchants', job.merchantId)
    if (!merchant || merchant.settlementJobId !== job.id) return
    // One report per mode, so that each key reads its own mode's run; live only once the merchant has live mode.
    const reports = payoutModes
      .filter((mode) => mode === 'test' || merchant.liveUnlocked)
      .map((mode) => {
        const payout = sweep(ctx, ctx.store.get('merchants', merchant.id)!, mode)
        return { mode, description: `settlement run (${merchant.settings.payoutSchedule}): ${payout ? describePayout(payout) : 'nothing to pay out'}` }
      })
    scheduleSettlement(ctx, merchant.id)
    return reports
  })
  registerTargetedJob<'payouts'>(ctx, DISBURSEMENT_JOB, (payout) => {
    if (payout.status !== 'pending' || payout.sentAt !== null) return
    const sent: PayoutRecord = { ...payout, sentAt: ctx.clock.now(payout.merchantId) }
    ctx.store.put('payouts', sent)
    recordEvent(ctx, payout.merchantId, payout.mode, 'disbursement.sent', presentPayout(sent))
    schedulePayoutJobs(ctx, sent)
    return `disbursement run sent ${describePayout(sent)}`
  })
  registerTargetedJob<'payouts'>(ctx, TRANSFER_JOB, (payout) => {
    const merchant = ctx.store.get('merchants', payout.merchantId)
    if (!merchant || payout.status !== 'pending') return
    const now = ctx.clock.now(merchant.id)
    const reason =
      merchant.nextPayoutFailure ?? (merchant.settings.payoutDestination === null ? 'No payout destination is set in Settings.' : null)
    if (reason === null) {
      ctx.store.put('payouts', { ...payout, status: 'paid', paidAt: now })
      return `${describePayout(payout)} paid`
    }
    // The money comes back and goes out with the next Payout (spec).
    const failed: PayoutRecord = { ...payout, status: 'failed', failureReason: reason }
    ctx.store.put('payouts', failed)
    ctx.store.put('merchants', {
      ...merchant,
      nextPayoutFailure: null,
      balances: { ...merchant.balances, [payout.mode]: merchant.balances[payout.mode] + payout.amount },
    })
    recordEvent(ctx, merchant.id, payout.mode, 'disbursement.failed', presentPayout(failed))
    return `${describePayout(payout)} failed: ${reason}`
  })
}
