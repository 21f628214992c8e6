import { apiError } from '../domain/error-catalog.js'
import { isDeepStrictEqual } from 'node:util'
import { invalidRequest } from '../../src/errors.js'
import type { Settings, UpdateSettingsRequest } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { requireLiveKey, type MerchantRecord } from '../domain/merchant.js'
import { scheduleSettlement } from './payouts.js'

export function presentSettings(merchant: MerchantRecord, mode: Caller['mode']): Settings {
  const s = merchant.settings
  return {
    mode,
    displayName: s.displayName,
    vatNumber: s.vatNumber ?? null,
    invoicePrefix: s.invoicePrefix,
    invoiceNextNumber: s.invoiceNextNumber[mode],
    receiptsEnabled: s.receiptsEnabled,
    payoutSchedule: s.payoutSchedule,
    payoutDestination: s.payoutDestination,
    liveProviders: s.liveProviders,
  }
}

/** Settings that decide where live money goes, or whether it moves at all. */
export const LIVE_MONEY_SETTINGS = ['payoutSchedule', 'payoutDestination', 'liveProviders'] as const

/** The dashboard's Settings page. The invoice counter changed is the calling key's mode's. */
export function updateSettings(ctx: ServiceContext, caller: Caller, patch: UpdateSettingsRequest): Settings {
  const merchant = ctx.store.get('merchants', caller.merchant.id) ?? caller.merchant
  const { mode } = caller
  // A form that sends every field back unchanged (the dashboard's) is not a change of live money.
  for (const field of LIVE_MONEY_SETTINGS) {
    if (patch[field] !== undefined && !isDeepStrictEqual(patch[field], merchant.settings[field])) {
      requireLiveKey(merchant, caller.mode, `Changing ${field}`, field)
    }
  }
  if (patch.liveProviders === true && !merchant.liveUnlocked) {
    throw apiError('verification_required', 'Live Providers can be switched on once verification is approved.', { param: 'liveProviders' })
  }
  const lastUsed = merchant.settings.invoiceLastNumber[mode]
  if (patch.invoiceNextNumber !== undefined && patch.invoiceNextNumber <= lastUsed) {
    // Numbers are never reused, so the counter may only move past the last one issued.
    throw invalidRequest(`invoiceNextNumber must be greater than ${lastUsed}, the last number used in ${mode} mode.`, 'invoiceNextNumber')
  }
  const { invoiceNextNumber, ...rest } = patch
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined))
  const updated: MerchantRecord = {
    ...merchant,
    settings: {
      ...merchant.settings,
      ...defined,
      invoiceNextNumber:
        invoiceNextNumber === undefined
          ? merchant.settings.invoiceNextNumber
          : { ...merchant.settings.invoiceNextNumber, [mode]: invoiceNextNumber },
    },
  }
  ctx.store.put('merchants', updated)
  if (patch.payoutSchedule !== undefined && patch.payoutSchedule !== merchant.settings.payoutSchedule) {
    scheduleSettlement(ctx, merchant.id)
  }
  return presentSettings(ctx.store.get('merchants', merchant.id)!, mode)
}
