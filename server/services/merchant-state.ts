import { ApiError, invalidRequest } from '../../src/errors.js'
import type { Caller, ServiceContext } from '../context.js'
import type { MerchantRecord } from '../domain/merchant.js'
import { COLLECTION_NAMES, type Collections } from '../store/collections.js'
import type { StateFile } from '../state.js'
import { INVOICE_ID_COUNTER } from './invoices.js'
import { scheduleSettlement } from './payouts.js'

/** Collections whose documents belong to one merchant through `merchantId`. */
const OWNED = COLLECTION_NAMES.filter((name) => name !== 'merchants' && name !== 'counters')
type Owned = (typeof OWNED)[number]

/** Imports and resets leave the merchant's own API keys alone, so the key doing it keeps working. */
const KEPT: readonly Owned[] = ['apiKeys']

const ownedBy = (ctx: ServiceContext, name: Owned, merchantId: string): Collections[Owned][] =>
  [...ctx.store.values(name)].filter((doc) => doc.merchantId === merchantId)

/** The merchant's own objects in both modes, as a state file (`bula state export`). */
export function exportMerchantState(ctx: ServiceContext, caller: Caller): StateFile & { merchantId: string } {
  const merchant = ctx.store.get('merchants', caller.merchant.id)!
  return {
    format: 'bula-state',
    version: 1,
    merchantId: merchant.id,
    collections: {
      merchants: [merchant],
      ...Object.fromEntries(OWNED.map((name) => [name, ownedBy(ctx, name, merchant.id)])),
    },
  }
}

function clearOwned(ctx: ServiceContext, merchantId: string): void {
  for (const name of OWNED) {
    if (KEPT.includes(name)) continue
    for (const doc of ownedBy(ctx, name, merchantId)) ctx.store.delete(name, doc.id)
  }
}

/**
 * Back to a merchant that just signed up, keeping its identity, keys,
 * settings, verification and clock (which never goes back): every session,
 * invoice, payout, event, delivery, e-mail and endpoint is gone.
 */
export function resetMerchantState(ctx: ServiceContext, caller: Caller): { merchantId: string; reset: true } {
  const merchant = ctx.store.get('merchants', caller.merchant.id)!
  clearOwned(ctx, merchant.id)
  const fresh: MerchantRecord = {
    ...merchant,
    balances: { test: 0, live: 0 },
    webhookFaults: { test: null, live: null },
    nextPayoutFailure: null,
    settlementJobId: null,
  }
  ctx.store.put('merchants', fresh)
  scheduleSettlement(ctx, merchant.id)
  ctx.clock.reload()
  return { merchantId: merchant.id, reset: true }
}

/**
 * Replaces the merchant's objects with those of a state file exported from
 * this merchant (`merchantId` must match). Ids of other merchants' objects
 * are never overwritten.
 */
export function importMerchantState(ctx: ServiceContext, caller: Caller, state: StateFile): { merchantId: string; imported: number } {
  const merchantId = caller.merchant.id
  const [merchant, ...others] = (state.collections.merchants ?? []) as MerchantRecord[]
  if (!merchant || others.length > 0 || merchant.id !== merchantId) {
    throw invalidRequest(`The state must hold exactly this merchant (${merchantId}); export it with this merchant's key.`, 'collections.merchants')
  }
  for (const name of OWNED) {
    for (const doc of (state.collections[name] ?? []) as Collections[Owned][]) {
      if (doc.merchantId !== merchantId) throw invalidRequest(`${name} ${doc.id} belongs to another merchant.`, `collections.${name}`)
      const existing = ctx.store.get(name, doc.id)
      if (existing && existing.merchantId !== merchantId) {
        throw new ApiError(409, 'id_conflict', `${name} ${doc.id} already exists for another merchant in this simulator.`, `collections.${name}`)
      }
    }
  }
  clearOwned(ctx, merchantId)
  let imported = 0
  // The clock never goes back, also through an import.
  const current = ctx.store.get('merchants', merchantId)!
  ctx.store.put('merchants', { ...merchant, clockOffsetMs: Math.max(merchant.clockOffsetMs, current.clockOffsetMs) })
  for (const name of OWNED) {
    if (KEPT.includes(name)) continue
    for (const doc of (state.collections[name] ?? []) as Collections[Owned][]) {
      ctx.store.put(name, doc as never)
      imported++
    }
  }
  const highestInvoice = Math.max(0, ...ownedBy(ctx, 'invoices', merchantId).map((invoice) => (invoice as Collections['invoices']).invoiceId))
  const counter = ctx.store.get('counters', INVOICE_ID_COUNTER)?.last ?? 0
  if (highestInvoice > counter) ctx.store.put('counters', { id: INVOICE_ID_COUNTER, last: highestInvoice })
  ctx.clock.reload()
  return { merchantId, imported }
}
