import type { ApproveVerificationResponse, SubmitVerificationRequest, Verification } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { requireLiveKey, type MerchantRecord } from '../domain/merchant.js'
import { presentVerification, reviewedVerification, submittedVerification } from '../domain/verification.js'
import { issueKey } from './api-keys.js'
import { getMerchant } from './merchants.js'

function save(ctx: ServiceContext, merchant: MerchantRecord): void {
  ctx.store.put('merchants', merchant)
}

export function getVerification(ctx: ServiceContext, caller: Caller): Verification {
  return presentVerification(getMerchant(ctx, caller.merchant.id).verification)
}

export function submitVerification(ctx: ServiceContext, caller: Caller, request: SubmitVerificationRequest): Verification {
  const merchant = getMerchant(ctx, caller.merchant.id)
  // The key before the state: once live keys exist a test key learns 403 live_key_required, not where verification stands.
  requireLiveKey(merchant, caller.mode, 'Verification')
  const verification = submittedVerification(merchant.verification, merchant.tier, request, ctx.clock.now(merchant.id))
  save(ctx, { ...merchant, verification })
  return presentVerification(verification)
}

/**
 * The reviewer's approval unlocks live mode: live Providers on, and the first
 * live key pair returned once (docs/simulator.md, "Verification").
 */
export function approveVerification(ctx: ServiceContext, caller: Caller): ApproveVerificationResponse {
  const merchant = getMerchant(ctx, caller.merchant.id)
  // The one call whose state comes before the key: approving an approved verification is invalid_state with any
  // key (docs/security.md), and nothing is minted twice.
  if (merchant.verification.status !== 'approved') requireLiveKey(merchant, caller.mode, 'Verification')
  const verification = reviewedVerification(merchant.verification, { approve: true }, ctx.clock.now(merchant.id))
  save(ctx, { ...merchant, verification, liveUnlocked: true, settings: { ...merchant.settings, liveProviders: true } })
  const secret = issueKey(ctx, merchant.id, 'secret', 'live')
  const publishable = issueKey(ctx, merchant.id, 'publishable', 'live')
  return { verification: presentVerification(verification), keys: { secret: secret.plaintext, publishable: publishable.plaintext } }
}

export function rejectVerification(ctx: ServiceContext, caller: Caller, reason: string): Verification {
  const merchant = getMerchant(ctx, caller.merchant.id)
  requireLiveKey(merchant, caller.mode, 'Verification')
  const verification = reviewedVerification(merchant.verification, { approve: false, reason }, ctx.clock.now(merchant.id))
  save(ctx, { ...merchant, verification })
  return presentVerification(verification)
}
