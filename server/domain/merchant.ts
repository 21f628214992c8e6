import { apiError } from './error-catalog.js'
import type { Mode, Tier } from '../../src/schemas/index.js'
import type { MerchantRecord } from './records.js'

export type { MerchantRecord, MerchantSettingsRecord, VerificationDocumentRecord, VerificationRecord } from './records.js'

/** Default quote rates, FJD per unit: round figures near the market in 2026, not live data. */
export const DEFAULT_RATES = { USD: '2.2500', AUD: '1.4800' } as const

export const DEFAULT_INVOICE_PREFIX = 'INV-'

export function newMerchant(input: { id: string; email: string; name: string; tier: Tier; now: number }): MerchantRecord {
  return {
    id: input.id,
    email: input.email,
    name: input.name,
    tier: input.tier,
    createdAt: input.now,
    clockOffsetMs: 0,
    liveUnlocked: false,
    balances: { test: 0, live: 0 },
    settings: {
      displayName: input.name,
      vatNumber: null,
      invoicePrefix: DEFAULT_INVOICE_PREFIX,
      invoiceNextNumber: { test: 1, live: 1 },
      invoiceLastNumber: { test: 0, live: 0 },
      receiptsEnabled: true,
      payoutSchedule: 'weekly',
      payoutDestination: null,
      liveProviders: false,
    },
    webhookFaults: { test: null, live: null },
    settlementJobId: null,
    nextPayoutFailure: null,
    quoteRates: {
      USD: { rate: DEFAULT_RATES.USD, asOf: input.now },
      AUD: { rate: DEFAULT_RATES.AUD, asOf: input.now },
    },
    verification: {
      status: 'unverified',
      tinLast3: null,
      documents: {},
      submittedAt: null,
      reviewedAt: null,
      rejectionReason: null,
    },
  }
}

/**
 * Once a merchant has live keys, what moves live money needs one of them, so
 * that a leaked test key cannot redirect a payout (docs/security.md). Before
 * that there is no live money, and the test key is the merchant's only key.
 */
export function requireLiveKey(merchant: MerchantRecord, mode: Mode, what: string, param?: string): void {
  if (mode === 'test' && merchant.liveUnlocked) {
    throw apiError('live_key_required', `${what} needs a live secret key (sk_live_…) once the merchant has live keys.`, { param })
  }
}
