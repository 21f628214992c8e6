/**
 * Money as people read and type it, the same in the CLI, the dashboard, the
 * hosted pages, e-mails and the PDF: `FJ$1,234.50`. No zod and no CLI here:
 * the simulator and the CLI both use it, and the CLI loads it at start.
 */

/** The cap of a Checkout Session and of an Invoice's total: under FJD 5,000.00, in cents (spec, Limits). */
export const MAX_AMOUNT = 499_999

const SYMBOLS: Record<string, string> = { FJD: 'FJ$', USD: 'US$', AUD: 'A$' }

/** Cents of a two-decimal currency as `FJ$1,234.50` (`US$`, `A$` for quotes). */
export function formatMoney(cents: number, currency: string): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  const dollars = Math.floor(abs / 100).toLocaleString('en-US')
  return `${sign}${SYMBOLS[currency] ?? `${currency} `}${dollars}.${String(abs % 100).padStart(2, '0')}`
}

/** FJD cents as `FJ$15.00`. */
export const formatFjd = (cents: number): string => formatMoney(cents, 'FJD')

// Whole units, then optionally one to two decimal places: the API counts
// cents, so a third decimal would have to be rounded away silently.
const DECIMAL_AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/

/**
 * Cents from a decimal amount of dollars (`15`, `15.5`, `15.00`), by string
 * arithmetic so that no float rounding can change an amount.
 */
export function parseDollars(input: string, what: string): number {
  const text = input.trim()
  const match = DECIMAL_AMOUNT.exec(text)
  if (!match) {
    // Said for what it is: "-5" and "1e20" were told about decimal places, which they do not lack.
    const why = text.startsWith('-') ? 'an amount cannot be negative' : /e/i.test(text) ? 'write it out without an exponent' : 'give dollars with at most 2 decimal places'
    throw new Error(`Invalid ${what} "${input}": ${why}, e.g. 15, 15.5 or 15.00.`)
  }
  const [, whole = '', fraction = ''] = match
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
  if (!Number.isSafeInteger(cents)) throw new Error(`Invalid ${what} "${input}": too large.`)
  return cents
}

/**
 * FJD cents from dollars a person typed, within the range the API takes, so
 * the refusal speaks in dollars ("must be under FJ$5,000.00"), not in the
 * cents the API counts.
 */
export function parseFjdAmount(input: string, what = 'amount', range: { min: number; max: number } = { min: 1, max: MAX_AMOUNT }): number {
  const cents = parseDollars(input, what)
  if (cents < range.min) throw new Error(`Invalid ${what} "${input}": it must be at least ${formatFjd(range.min)}.`)
  if (cents > range.max) throw new Error(`Invalid ${what} "${input}": it must be under ${formatFjd(range.max + 1)} (at most ${formatFjd(range.max)}).`)
  return cents
}

/** An Invoice item's unit price: FJ$0.00 (a free item) up to the cap. */
export const parseUnitPrice = (input: string): number => parseFjdAmount(input, 'unit price', { min: 0, max: MAX_AMOUNT })
