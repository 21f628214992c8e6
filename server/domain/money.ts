import { MAX_AMOUNT } from '../../src/schemas/checkout-sessions.js'

export const isWithinCap = (cents: number): boolean => cents <= MAX_AMOUNT

const RATE_SCALE = 1_000_000n

/**
 * Converts a quote price (cents of USD or AUD) at a decimal rate (FJD per
 * unit) into FJD cents, rounding to the nearest cent, halves up (docs/simulator.md,
 * "Quotes"). Integer arithmetic throughout: the rate is scaled to millionths.
 */
export function convertToFjd(quoteCents: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.')
  const scaledRate = BigInt(whole) * RATE_SCALE + BigInt(fraction.padEnd(6, '0').slice(0, 6))
  const product = BigInt(quoteCents) * scaledRate
  return Number((product + RATE_SCALE / 2n) / RATE_SCALE)
}
