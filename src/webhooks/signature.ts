import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'Service-Signature'
export const TIMESTAMP_HEADER = 'Service-Timestamp'
export const EVENT_ID_HEADER = 'X-Service-Event-Id'

/** A receiver rejects deliveries whose timestamp is older than this (spec). */
export const DEFAULT_TOLERANCE_SECONDS = 300

/**
 * HMAC-SHA256 of `<timestamp>.<raw body>` with the endpoint secret, hex
 * encoded (spec, Delivery and verification). A receiver passes the
 * `Service-Timestamp` header as received: the signed string is its text.
 */
export function computeSignature(secret: string, timestampSeconds: number | string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(rawBody).digest('hex')
}

/**
 * The headers of one delivery. With more than one secret (a rotation's
 * 72-hour overlap) the signature header carries one `v1=` per secret, newest
 * first: `v1=<new>,v1=<old>` (docs/webhooks.md).
 */
export function signedHeaders(
  secrets: readonly string[],
  timestampSeconds: number,
  rawBody: string,
  eventId: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    [SIGNATURE_HEADER.toLowerCase()]: secrets.map((secret) => `v1=${computeSignature(secret, timestampSeconds, rawBody)}`).join(','),
    [TIMESTAMP_HEADER.toLowerCase()]: String(timestampSeconds),
    [EVENT_ID_HEADER.toLowerCase()]: eventId,
  }
}

export type WebhookVerificationCode = 'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature' | 'invalid_payload'

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message)
    this.name = 'WebhookVerificationError'
  }
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const bag = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase())
  const value = key === undefined ? undefined : bag[key]
  return Array.isArray(value) ? value.join(',') : value
}

export interface VerifyOptions {
  /** Oldest accepted timestamp, in seconds before now. Default 300 (the spec's 5 minutes). */
  toleranceSeconds?: number
  /** Now in Unix seconds, for tests; default the system clock. */
  nowSeconds?: number
}

/**
 * Verifies a delivery as a merchant's server should: the timestamp is recent,
 * one of the `v1=` signatures matches the secret (compared in constant time),
 * and the body is JSON. Returns the parsed payload; throws
 * WebhookVerificationError otherwise. Pass the raw body exactly as received.
 */
export function verifyWebhook<T = unknown>(rawBody: string | Buffer, headers: HeaderBag, secret: string, options: VerifyOptions = {}): T {
  // The usual mistakes, said as such instead of Node's TypeErrors from deep inside (ERR_INVALID_ARG_TYPE, reading 'get'
  // of undefined): a secret that is not set is the server's own fault, a parsed body or no headers the request's.
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError(`verifyWebhook needs the endpoint's whsec_ signing secret, and got ${secret === '' ? 'an empty string' : typeof secret} (is its environment variable set?).`)
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('invalid_signature', 'The body was parsed before verifyWebhook saw it: the signature covers the raw bytes, so pass those (express.raw, not express.json).')
  }
  if (typeof headers !== 'object' || headers === null) throw new WebhookVerificationError('missing_header', `No headers were given, so no ${SIGNATURE_HEADER}.`)
  const signature = header(headers, SIGNATURE_HEADER)
  const timestamp = header(headers, TIMESTAMP_HEADER)
  if (!signature) throw new WebhookVerificationError('missing_header', `Missing ${SIGNATURE_HEADER} header.`)
  if (!timestamp) throw new WebhookVerificationError('missing_header', `Missing ${TIMESTAMP_HEADER} header.`)
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', `${TIMESTAMP_HEADER} is not Unix seconds.`)
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000)
  // A comparison with NaN is false, so a tolerance read from an unset variable (Number(undefined)) would accept a
  // delivery of any age: the server's own mistake, refused as a missing secret is. (An Infinity tolerance is a
  // choice, not a mistake: it turns the age check off, as a test of `bula webhooks check` does.)
  for (const [name, value] of [['toleranceSeconds', tolerance], ['nowSeconds', now]] as const) {
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw new TypeError(`verifyWebhook's options.${name} must be a number of seconds, 0 or more, not ${typeof value === 'number' ? value : typeof value}.`)
    }
  }
  if (now - Number(timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `The delivery is older than ${tolerance} seconds.`)
  }
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'hex')
  const matches = signature
    .split(',')
    .map((part) => part.trim())
    // Whole hex values only: Buffer.from(..., 'hex') stops at the first other character, so a signature with anything appended would decode to the genuine one.
    .filter((part) => /^v1=[0-9a-fA-F]{64}$/.test(part))
    .some((part) => timingSafeEqual(Buffer.from(part.slice(3), 'hex'), expected))
  if (!matches) throw new WebhookVerificationError('invalid_signature', 'No signature matches the secret.')
  try {
    // Any Uint8Array (a Buffer is one): its own toString() would list the byte values.
    return JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8')) as T
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON.')
  }
}
