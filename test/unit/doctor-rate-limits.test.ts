import { describe, expect, it } from 'vitest'
import { diagnose, type DoctorInput, type DoctorRequest } from '../../server/domain/doctor.js'

// The doctor's Retry-After check on the request log alone (server/domain/doctor.ts, rateLimits).

const T = Date.UTC(2026, 10, 25, 9, 0)

function create(at: number, status: number, retryAfterS: number | null = null): DoctorRequest {
  return {
    at,
    method: 'POST',
    path: '/v1/checkout-sessions',
    status,
    latencyMs: 0.4,
    idempotencyKey: `key-${at}-${status}`,
    requestId: `req_${at}`,
    fault: null,
    keyId: 'key_publishable',
    requestDigest: null,
    objectId: null,
    replayed: false,
    retryAfterS,
  }
}

const input = (requests: DoctorRequest[]): DoctorInput => ({
  mode: 'test',
  now: T + 60_000,
  since: null,
  requests,
  bulaCliRequests: 0,
  eventCount: 0,
  deliveries: [],
  endpoints: [],
  sessions: [],
  account: { verification: 'unverified', hasPayoutDestination: false, receiptsEnabled: true },
})

const checks = (requests: DoctorRequest[]) => Object.fromEntries(diagnose(input(requests)).findings.filter((finding) => /retry-after|rate-limited/.test(finding.check)).map((finding) => [finding.check, finding.severity]))

describe('429s and Retry-After, from the request log', () => {
  it('a retry that finished in the same millisecond as the 429 is still the retry that came next', () => {
    expect(checks([create(T, 201), create(T + 900, 429, 59), create(T + 900, 429, 59)])).toEqual({ 'retry-after-ignored': 'error' })
  })

  it('a retry sent after Retry-After is only the warning that the limit was hit', () => {
    expect(checks([create(T, 429, 2), create(T + 2_000, 201)])).toEqual({ 'rate-limited': 'warning' })
  })

  it('a 429 that nothing followed is only the warning', () => {
    expect(checks([create(T, 201), create(T + 5, 429, 59)])).toEqual({ 'rate-limited': 'warning' })
  })
})
