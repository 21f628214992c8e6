import { MAX_AMOUNT } from '../../src/schemas/checkout-sessions.js'

/** FJ$15.00: an amount in FJD cents as a person reads it. */
export function formatFjd(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  const dollars = Math.floor(abs / 100).toLocaleString('en-US')
  return `${sign}FJ$${dollars}.${String(abs % 100).padStart(2, '0')}`
}

export const isWithinCap = (cents: number): boolean => cents <= MAX_AMOUNT

const RATE_SCALE = 1_000_000n

/**
 * Converts a quote price (cents of USD or AUD) at a decimal rate (FJD per
 * unit) into FJD cents, rounding to the nearest cent, halves up (contract
 * §6). Integer arithmetic throughout: the rate is scaled to millionths.
 */
export function convertToFjd(quoteCents: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.')
  const scaledRate = BigInt(whole) * RATE_SCALE + BigInt(fraction.padEnd(6, '0').slice(0, 6))
  const product = BigInt(quoteCents) * scaledRate
  return Number((product + RATE_SCALE / 2n) / RATE_SCALE)
}
