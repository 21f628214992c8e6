import type { ConformanceCase } from '../types.js'
import { apiKeyCases } from './api-keys.js'
import { authenticationCases } from './authentication.js'
import { checkoutSessionCases } from './checkout-sessions.js'
import { errorCases, versioningCases } from './errors-and-versioning.js'
import { idempotencyCases, rateLimitCases } from './idempotency-and-rate-limits.js'
import { invoiceCases } from './invoices.js'
import { modesAndMerchantsCases } from './modes-and-merchants.js'
import { payoutCases } from './payouts.js'
import { webhookCases, webhookEndpointCases } from './webhooks.js'

/** Every case, in the order a run takes them: the spec's order, roughly. */
export const CASES: readonly ConformanceCase[] = [
  ...authenticationCases,
  ...modesAndMerchantsCases,
  ...checkoutSessionCases,
  ...idempotencyCases,
  ...rateLimitCases,
  ...invoiceCases,
  ...payoutCases,
  ...apiKeyCases,
  ...webhookEndpointCases,
  ...webhookCases,
  ...errorCases,
  ...versioningCases,
]

/** The section of a case id: `webhooks` of `webhooks/signature`. */
export const sectionOf = (caseId: string): string => caseId.split('/')[0]!
