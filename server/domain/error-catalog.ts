import { ApiError } from '../../src/errors.js'

/**
 * Every error code the simulator answers, with its status and when: the one
 * place a code gets its status. Services and routes throw by name through
 * apiError(), route specs list codes from here, and /openapi.json describes
 * its error responses from here (docs/simulator.md, Errors), so a misspelt
 * code fails type-checking and a status cannot drift from its code.
 */
const CATALOG = {
  invalid_request: {
    status: 400,
    when: [
      'a wrong type, an out-of-range value or an unknown field in the body or query string (both are strict), malformed JSON,',
      'a body that is not a JSON object, a missing or too long Idempotency-Key where the route needs one, or a rule of the route;',
      '`param` names the field',
    ].join(' '),
  },
  missing_api_key: { status: 401, when: 'no `Authorization` header', headers: ['WWW-Authenticate'] },
  invalid_api_key: {
    status: 401,
    when: 'not `Bearer <key>`, or a key that is unknown, revoked or past its rotation overlap',
    headers: ['WWW-Authenticate'],
  },
  publishable_key_forbidden: { status: 403, when: 'a publishable key on a route that needs a secret key (`type: "permission_error"`)' },
  live_key_requires_live_key: { status: 403, when: 'a test key asking for a live key' },
  test_key_requires_test_key: { status: 403, when: 'a live key asking for a test key' },
  live_key_required: {
    status: 403,
    when: 'a test key changing what moves live money (payout destination and schedule, live providers, live payout faults, verification) once the merchant has live keys',
  },
  host_not_allowed: {
    status: 403,
    when: 'a `Host` header that is not localhost, an IP address or a name given with `--allowed-host` (DNS rebinding)',
  },
  business_only: { status: 403, when: 'an individual account using what only business accounts have' },
  csrf_failed: { status: 403, when: 'a dashboard form without its session\'s CSRF token, or from another origin (dashboard only)' },
  live_mode_locked: { status: 403, when: 'the dashboard switched to live mode before verification unlocked it (dashboard only)' },
  not_found: { status: 404, when: 'no such object for this merchant and mode' },
  method_not_allowed: { status: 405, when: 'a method the path does not take', headers: ['Allow'] },
  request_timeout: {
    status: 408,
    when: 'headers that did not arrive within 60 s, or a request within 5 minutes, Node\'s limits (the connection is closed)',
  },
  invalid_state: { status: 409, when: 'the object is not in a state that allows this' },
  idempotency_key_reused: { status: 409, when: 'the Idempotency-Key was used with a different request' },
  verification_required: { status: 409, when: 'live providers need approved verification' },
  payment_in_progress: { status: 409, when: 'the customer has started paying' },
  live_mode_unavailable: { status: 409, when: 'live payments need live providers switched on in Settings' },
  quote_unavailable_in_live_mode: { status: 409, when: 'a quote with a live key' },
  payout_schedule_not_manual: { status: 409, when: 'a payout request while the schedule is not manual' },
  no_balance: { status: 409, when: 'nothing to pay out' },
  payload_too_large: { status: 413, when: 'a body over 1 MiB' },
  unsupported_media_type: { status: 415, when: 'a body that is not `application/json`; `param` is `Content-Type`' },
  rate_limited: { status: 429, when: 'too many Checkout Sessions created with this key this minute', headers: ['Retry-After'] },
  headers_too_large: {
    status: 431,
    when: 'a request line and headers over 16 KiB, Node\'s limit (the connection is closed)',
  },
  injected_fault: {
    status: 503,
    otherStatuses: [500, 502, 504],
    when: 'an `error` fault set with `POST /_sim/faults` for this route, merchant and mode (500, 502, 503 or 504, as it was set); nothing was changed',
  },
  internal_error: { status: 500, when: 'a bug in the simulator (the stack trace goes to its log, never into the body)' },
  storage_unavailable: { status: 503, when: 'the change could not be written to disk, so it is not confirmed' },
} as const satisfies Record<string, ErrorCodeInfo>

export type ErrorCode = keyof typeof CATALOG

export interface ErrorCodeInfo {
  status: number
  /** Statuses the code may also come with: only an injected fault's, which the merchant chooses. */
  otherStatuses?: readonly number[]
  /** Completes "`code`: …" in the document. */
  when: string
  /** Response headers that come with the code, beyond X-Request-Id. */
  headers?: readonly ResponseHeader[]
}

export const ERROR_CODES: Record<ErrorCode, ErrorCodeInfo> = CATALOG

/** Response headers the document describes once, in components.headers. */
export type ResponseHeader = 'X-Request-Id' | 'Idempotent-Replayed' | 'Retry-After' | 'Allow' | 'WWW-Authenticate'

/** Every status `code` comes with: its own, then any other the catalogue allows. */
export const statusesOf = (code: ErrorCode): readonly number[] => {
  const info: ErrorCodeInfo = CATALOG[code]
  return [info.status, ...(info.otherStatuses ?? [])]
}

/**
 * The error for `code`, its status from the catalogue: `apiError('invalid_state', 'Only a draft can be sent.')`.
 * `param` names the field at fault; `headers` go on the answer (Retry-After, Allow); `status` picks
 * another of the statuses the catalogue allows the code (an injected fault's).
 */
export function apiError(
  code: ErrorCode,
  message: string,
  options: { param?: string; type?: string; headers?: Record<string, string>; status?: number } = {},
): ApiError {
  const status = options.status ?? CATALOG[code].status
  if (!statusesOf(code).includes(status)) throw new Error(`${code} is not catalogued with status ${status}`)
  return new ApiError(status, code, message, options.param, options.type, options.headers)
}
