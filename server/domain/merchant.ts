import type { Mode, PayoutDestination, PayoutSchedule, Rates, Tier, VerificationStatus, WebhookFaults } from '../../src/schemas/index.js'

export interface MerchantSettingsRecord {
  displayName: string
  invoicePrefix: string
  /** Invoice numbers are counted per mode. */
  invoiceNextNumber: Record<Mode, number>
  /** The highest number already used, so the counter can never be set back onto it. */
  invoiceLastNumber: Record<Mode, number>
  receiptsEnabled: boolean
  payoutSchedule: PayoutSchedule
  payoutDestination: PayoutDestination | null
  liveProviders: boolean
}

export interface VerificationDocumentRecord {
  contentType: string
  bytes: number
  sha256: string
}

export interface VerificationRecord {
  status: VerificationStatus
  /** Only the last three digits are kept. */
  tinLast3: string | null
  documents: Record<string, VerificationDocumentRecord>
  submittedAt: number | null
  reviewedAt: number | null
  rejectionReason: string | null
}

export interface MerchantRecord {
  id: string
  email: string
  name: string
  tier: Tier
  createdAt: number
  /** The merchant's clock is real time plus this offset (contract §5). */
  clockOffsetMs: number
  liveUnlocked: boolean
  /** Earned balance not yet swept into a Payout, per mode, FJD cents. */
  balances: Record<Mode, number>
  settings: MerchantSettingsRecord
  verification: VerificationRecord
  /** The quote rate table (`/_sim/rates`), per merchant so parallel test suites never share it. */
  quoteRates: Rates
  /** Delivery faults per mode (`/_sim/webhook-faults`); null when deliveries are faithful. */
  webhookFaults: Record<Mode, WebhookFaults | null>
  /** The pending settlement run on the merchant's clock; null on the manual schedule. */
  settlementJobId: string | null
  /** The fault control: the next live Payout fails with this reason (`/_sim/payouts/fail-next`). */
  nextPayoutFailure: string | null
}

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
