import type { Mode, Payout, PayoutSchedule, Tier } from '../../src/schemas/index.js'
import type { PayoutRecord } from './records.js'

export type { PayoutRecord } from './records.js'

const DAY = 24 * 60 * 60 * 1000
const WEEK = 7 * DAY

/**
 * The fortnightly schedule runs on Mondays an even number of weeks after
 * this Monday (2024-01-01, 00:00 UTC), so every merchant alternates on the
 * same weeks: 2026-11-30 is one, 2026-11-23 and 2026-12-07 are not.
 */
export const FORTNIGHT_ANCHOR = Date.UTC(2024, 0, 1)

/** The daily disbursement run sends live Payouts at 06:00 UTC; the money arrives an hour later. */
export const DISBURSEMENT_HOUR_UTC = 6
export const TRANSFER_MS = 60 * 60 * 1000

const startOfUtcDay = (t: number): number => Math.floor(t / DAY) * DAY

/** The next settlement run strictly after `now`: 00:00 UTC on the schedule's days; null for `manual`. */
export function nextSettlementAt(schedule: PayoutSchedule, now: number): number | null {
  const tomorrow = startOfUtcDay(now) + DAY
  switch (schedule) {
    case 'manual':
      return null
    case 'daily':
      return tomorrow
    case 'weekly':
    case 'fortnightly': {
      // 1970-01-01 was a Thursday, so Mondays are 4 days after a whole number of weeks.
      const daysToMonday = (((1 - new Date(tomorrow).getUTCDay()) % 7) + 7) % 7
      let monday = tomorrow + daysToMonday * DAY
      if (schedule === 'fortnightly' && Math.round((monday - FORTNIGHT_ANCHOR) / WEEK) % 2 !== 0) monday += WEEK
      return monday
    }
    case 'monthly': {
      const date = new Date(now)
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
    }
  }
}

/** The next daily disbursement run strictly after `now`. */
export function nextDisbursementAt(now: number): number {
  const today = startOfUtcDay(now) + DISBURSEMENT_HOUR_UTC * 60 * 60 * 1000
  return today > now ? today : today + DAY
}

/** Business accounts are paid by bank transfer, individuals to a wallet (spec). */
export const railFor = (tier: Tier): Payout['rail'] => (tier === 'business' ? 'bank_transfer' : 'wallet')

export const presentPayout = ({ merchantId: _m, ...payout }: PayoutRecord): Payout => payout

export const payoutModes: readonly Mode[] = ['test', 'live']
