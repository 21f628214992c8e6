import { QUOTE_CURRENCIES } from '../schemas/enums.js'
import type { CreateCheckoutSessionRequest, QuoteCurrency } from '../schemas/index.js'
import { parseDollars } from '../money.js'
import { parseDuration } from '../duration.js'
import { SESSION_EXPIRY_MS } from '../session-expiry.js'
import { usageError } from './usage.js'

export type QuoteRequest = NonNullable<CreateCheckoutSessionRequest['quote']>

const QUOTE_PATTERN = new RegExp(`^(\\S+?)\\s*(${QUOTE_CURRENCIES.join('|')})$`, 'i')

/** `--quote 25.00USD`, `25USD` or `25.5 AUD`: a price in cents of USD or AUD. */
export function parseQuote(input: string): QuoteRequest {
  const match = QUOTE_PATTERN.exec(input.trim())
  if (!match) {
    throw new Error(
      `Invalid quote "${input}": give an amount and ${QUOTE_CURRENCIES.join(' or ')}, e.g. 25.00USD or "25.5 AUD".`,
    )
  }
  const [, amount = '', currency = ''] = match
  return { amount: parseDollars(amount, 'quote amount'), currency: currency.toUpperCase() as QuoteCurrency }
}

/**
 * `--expires-in 2h`: a duration within the window a session may expire in
 * (30 minutes to 24 hours), checked here so that the flag is named, not the
 * API's `expiresAt` with the merchant's clock in milliseconds.
 */
export function parseExpiresIn(input: string): number {
  const ms = parseDuration(input)
  if (ms < SESSION_EXPIRY_MS.min || ms > SESSION_EXPIRY_MS.max) {
    throw new Error(`Invalid --expires-in "${input}": a Checkout Session expires 30m to 24h after it is made (90m, 2h, 1h30m).`)
  }
  return ms
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
