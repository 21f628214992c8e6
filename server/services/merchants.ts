import { notFound } from '../../src/errors.js'
import type { MerchantMe, SignupRequest, SignupResponse, SimMerchant } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { newMerchant, type MerchantRecord } from '../domain/merchant.js'
import { newId } from '../ids.js'
import { issueKey } from './api-keys.js'
import { scheduleSettlement } from './payouts.js'

export function presentSimMerchant(merchant: MerchantRecord): SimMerchant {
  return {
    id: merchant.id,
    email: merchant.email,
    name: merchant.name,
    tier: merchant.tier,
    createdAt: merchant.createdAt,
    verificationStatus: merchant.verification.status,
    liveUnlocked: merchant.liveUnlocked,
  }
}

/**
 * Signup needs only an e-mail, a name and a tier, and a test key pair is
 * issued at once (spec, item 6). E-mails need not be unique: parallel test
 * suites may each sign up the same address and must not collide.
 */
export function signup(ctx: ServiceContext, request: SignupRequest): SignupResponse {
  const id = newId('ms')
  const merchant = newMerchant({ id, ...request, now: ctx.clock.now(id) })
  ctx.store.put('merchants', merchant)
  const secret = issueKey(ctx, id, 'secret', 'test')
  const publishable = issueKey(ctx, id, 'publishable', 'test')
  scheduleSettlement(ctx, id)
  return { merchant: presentSimMerchant(merchant), keys: { secret: secret.plaintext, publishable: publishable.plaintext } }
}

export function getMerchant(ctx: ServiceContext, merchantId: string): MerchantRecord {
  const merchant = ctx.store.get('merchants', merchantId)
  if (!merchant) throw notFound('merchant')
  return merchant
}

export function describeMe(caller: Caller): MerchantMe {
  const { merchant, mode } = caller
  return {
    id: merchant.id,
    name: merchant.name,
    displayName: merchant.settings.displayName,
    email: merchant.email,
    tier: merchant.tier,
    mode,
    balance: merchant.balances[mode],
    payoutSchedule: merchant.settings.payoutSchedule,
  }
}

/**
 * A fresh test key pair for the first business merchant (any merchant, or a
 * new one, failing that), for a process that needs keys of data whose keys
 * are hashed, such as `bula exec --import`.
 */
export function mintTestKeys(ctx: ServiceContext): { merchantId: string; secret: string; publishable: string } {
  const merchants = [...ctx.store.values('merchants')]
  const merchant = merchants.find((m) => m.tier === 'business') ?? merchants[0]
  if (!merchant) {
    const created = signup(ctx, { email: 'exec@bula.test', name: 'Bula exec merchant', tier: 'business' })
    return { merchantId: created.merchant.id, ...created.keys }
  }
  return {
    merchantId: merchant.id,
    secret: issueKey(ctx, merchant.id, 'secret', 'test').plaintext,
    publishable: issueKey(ctx, merchant.id, 'publishable', 'test').plaintext,
  }
}
