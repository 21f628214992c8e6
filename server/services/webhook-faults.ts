import type { WebhookFaults, WebhookFaultsRequest } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { getMerchant } from './merchants.js'

export const getFaults = (ctx: ServiceContext, caller: Caller): WebhookFaults | null =>
  getMerchant(ctx, caller.merchant.id).webhookFaults[caller.mode]

/** Replaces the mode's fault configuration (null turns faults off); the draw count starts again. */
export function setFaults(ctx: ServiceContext, caller: Caller, request: WebhookFaultsRequest | null): WebhookFaults | null {
  const merchant = getMerchant(ctx, caller.merchant.id)
  const faults = request === null ? null : { ...request, drawn: 0 }
  ctx.store.put('merchants', { ...merchant, webhookFaults: { ...merchant.webhookFaults, [caller.mode]: faults } })
  return faults
}
