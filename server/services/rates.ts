import type { Rates, UpdateRatesRequest } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { getMerchant } from './merchants.js'

export const getRates = (ctx: ServiceContext, caller: Caller): Rates => getMerchant(ctx, caller.merchant.id).quoteRates

/** A changed rate is stamped with the merchant's time; sessions already created keep their locked rate. */
export function updateRates(ctx: ServiceContext, caller: Caller, request: UpdateRatesRequest): Rates {
  const merchant = getMerchant(ctx, caller.merchant.id)
  const asOf = ctx.clock.now(merchant.id)
  const quoteRates: Rates = { ...merchant.quoteRates }
  for (const currency of ['USD', 'AUD'] as const) {
    const rate = request[currency]
    if (rate !== undefined) quoteRates[currency] = { rate, asOf }
  }
  ctx.store.put('merchants', { ...merchant, quoteRates })
  return quoteRates
}
