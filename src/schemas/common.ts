import { z } from 'zod'
import { MODES, PAYOUT_SCHEDULES, TIERS } from './enums.js'

export const modeSchema = z.enum(MODES)
export type Mode = z.infer<typeof modeSchema>

export const tierSchema = z.enum(TIERS)
export type Tier = z.infer<typeof tierSchema>

export const payoutScheduleSchema = z.enum(PAYOUT_SCHEDULES)
export type PayoutSchedule = z.infer<typeof payoutScheduleSchema>

/** Unix milliseconds on the merchant's clock. */
export const timestampSchema = z.number().int().nonnegative()

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    type: z.string().optional(),
  }),
})

/**
 * A URL where the spec asks for HTTPS. The service checks it against the
 * key's mode (test mode also takes http on loopback and on `--allowed-host`
 * names); the document states the part every mode takes, so a client built
 * from it sends only URLs the server accepts.
 */
export const httpsUrlSchema = z
  .string()
  .trim()
  .max(2048)
  // Judged as typed, before z.url(), which drops a tab or line break inside the URL without a word (the WHATWG
  // parser's rule) and keeps a NUL. The URL parser takes "https://shop.example/a b" and percent-encodes it; stored
  // as typed, it would be listed and compared with its space. No URI holds whitespace or controls (RFC 3986).
  // eslint-disable-next-line no-control-regex
  .refine((url) => !/[\s\u0000-\u001f\u007f-\u009f]/.test(url), { message: 'must not contain spaces or control characters: percent-encode them (%20)', abort: true })
  // The parser reads a backslash in an http(s) URL as a slash: "https://good.example\@evil.example/" is stored as
  // typed and leads to good.example/@evil.example. No URI holds one (RFC 3986).
  .refine((url) => !url.includes('\\'), { message: 'must not contain a backslash: write / or percent-encode it (%5C)', abort: true })
  // The parser reads "https:///x" as https://x/, while the URL stays stored as typed.
  .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[/?#]/i.test(url), { message: 'must name its host after `//`', abort: true })
  .pipe(z.url({ protocol: /^https?$/ }))
  .meta({
    format: 'uri',
    pattern: '^(https://[^\\s/?#]|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?(/|$))\\S*$',
    description: 'HTTPS. Test mode also takes http://localhost, http://127.0.0.1, http://[::1] and the names given to `bula serve --allowed-host`.',
  })

/**
 * One line of text that people read (a name, a label, an item), trimmed, of
 * 1 to `max` characters, without control characters: a line break in a
 * display name became a header line of its own in an invoice e-mail's
 * subject (`Bcc: …`) and in the PDF's author, and a NUL, a tab or a line
 * break was lost when the dashboard's one-line field saved the value again.
 */
export const textLineSchema = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    // The control characters are the point of this pattern.
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must be one line, without control characters')
    // As documented, with what trim() and min(1) add: something besides spaces. A client generating from the
    // document otherwise sends "  ", which trims to nothing.
    .meta({ pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$' })

/**
 * An e-mail address as RFC 5321 and 5322 write one without quotes: a local
 * part of 1 to 64 characters of dot-separated atoms (`a#b`, `o'neil+tag` are
 * addresses), an `@`, and a domain of two or more labels of letters, digits
 * and inner hyphens. zod's own pattern refused `a#b@shop.fj`, which the
 * dashboard's e-mail field (a browser's) accepts, and took `x@shop-.fj` and
 * a 65-character local part.
 */
export const EMAIL_PATTERN =
  /^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/

/** At most 254 characters, the longest address SMTP carries. */
export const emailAddressSchema = z.email({ pattern: EMAIL_PATTERN }).max(254)

/** A request body that must be absent or an empty JSON object. */
export const emptyBodySchema = z.strictObject({})

/** A whole number's range as a message says it: `page=0` is a whole number too, so the message names the bounds. */
function wholeNumberIn({ min, max }: { min?: number; max?: number }): string {
  if (max !== undefined) return `a whole number from ${min ?? 0} to ${max}`
  return min ? `a whole number of ${min} or more` : 'a whole number'
}

/**
 * A whole number sent as a query string value: digits only (no sign,
 * exponent or hex), read as a number. The document declares it `integer`
 * with its range, so typed clients send `limit: 5`, not a string.
 */
export const integerQuerySchema = (name: string, range: { min?: number; max?: number } = {}, what = wholeNumberIn(range)) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value),
    z
      .number({ error: `${name} must be ${what}` })
      .int(`${name} must be ${what}`)
      .min(range.min ?? 0)
      .max(range.max ?? Number.MAX_SAFE_INTEGER),
  )

/** The list `limit` of the spec: 1 to `max` (100), as a query string value. */
export const limitQuerySchema = (max = 100) => integerQuerySchema('limit', { min: 1, max })
