import { quoteCurrencySchema, type CreateCheckoutSessionRequest, type QuoteCurrency } from '../schemas/index.js'
import { usageError } from './usage.js'

export type QuoteRequest = NonNullable<CreateCheckoutSessionRequest['quote']>

// Whole units, then optionally one to two decimal places: the API counts
// cents, so a third decimal would have to be rounded away silently.
const DECIMAL_AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/

const QUOTE_PATTERN = new RegExp(`^(\\S+?)\\s*(${quoteCurrencySchema.options.join('|')})$`, 'i')

/**
 * Cents from a decimal amount of dollars (`15`, `15.5`, `15.00`), by string
 * arithmetic so that no float rounding can change the amount charged.
 * Limits (more than 0, under FJD 5,000.00) are the simulator's to check.
 */
function toCents(input: string, what: string): number {
  const match = DECIMAL_AMOUNT.exec(input.trim())
  if (!match) {
    throw new Error(`Invalid ${what} "${input}": give dollars with at most 2 decimal places, e.g. 15, 15.5 or 15.00.`)
  }
  const [, whole = '', fraction = ''] = match
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
  if (!Number.isSafeInteger(cents)) throw new Error(`Invalid ${what} "${input}": too large.`)
  return cents
}

/** `--amount 15.00`: FJD dollars to cents. */
export const parseFjdAmount = (input: string): number => toCents(input, 'amount')

/** `--quote 25.00USD`, `25USD` or `25.5 AUD`: a price in cents of USD or AUD. */
export function parseQuote(input: string): QuoteRequest {
  const match = QUOTE_PATTERN.exec(input.trim())
  if (!match) {
    throw new Error(
      `Invalid quote "${input}": give an amount and ${quoteCurrencySchema.options.join(' or ')}, e.g. 25.00USD or "25.5 AUD".`,
    )
  }
  const [, amount = '', currency = ''] = match
  return { amount: toCents(amount, 'quote amount'), currency: currency.toUpperCase() as QuoteCurrency }
}

export interface MetadataPair {
  key: string
  value: string
}

/** `--metadata key=value`: split at the first `=`, so a value may itself contain `=`. */
export function parseMetadataPair(input: string): MetadataPair {
  const separator = input.indexOf('=')
  if (separator <= 0) throw new Error(`Invalid metadata "${input}": use key=value, e.g. order_id=1234.`)
  return { key: input.slice(0, separator), value: input.slice(separator + 1) }
}

/**
 * The metadata map of repeated `--metadata` flags. A key given twice is
 * refused rather than one value dropped silently. Counts and lengths are the
 * simulator's to check.
 */
export function metadataFromPairs(pairs: readonly MetadataPair[]): Record<string, string> {
  const seen = new Set<string>()
  for (const { key } of pairs) {
    if (seen.has(key)) throw usageError(`Metadata key "${key}" is given twice.`)
    seen.add(key)
  }
  // fromEntries defines own properties, so even a key such as __proto__ stays plain data.
  return Object.fromEntries(pairs.map(({ key, value }) => [key, value]))
}
