import type { Delivery, DeliveryAttempt, WebhookEndpoint } from '../../src/schemas/index.js'
import type { DeliveryRecord, WebhookEndpointRecord } from './records.js'

export type { DeliveryRecord, SigningSecret, WebhookEndpointRecord } from './records.js'
export { MAX_SIGNING_SECRETS } from './records.js'

/** The previous signing secret keeps verifying this long after a rotation (spec). */
export const SECRET_OVERLAP_MS = 72 * 60 * 60 * 1000

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/**
 * Waits before each retry of a failed delivery, on the merchant's clock: 9
 * attempts in all over about 2 days and 21 hours, after which the delivery
 * is marked failed (the spec leaves the schedule open).
 */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR] as const

/** The secrets to sign with at `now`: the current one, and every rotated one still in its overlap, newest first. */
export const activeSecrets = (endpoint: WebhookEndpointRecord, now: number): string[] =>
  endpoint.secrets.filter((s) => s.expiresAt === null || now < s.expiresAt).map((s) => s.secret)

export function presentEndpoint(endpoint: WebhookEndpointRecord, now: number): WebhookEndpoint {
  const previous = endpoint.secrets.find((s) => s.expiresAt !== null && now < s.expiresAt)
  return {
    id: endpoint.id,
    url: endpoint.url,
    mode: endpoint.mode,
    status: endpoint.status,
    createdAt: endpoint.createdAt,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
  }
}

export const presentDelivery = ({ merchantId: _m, mode: _mode, failFirstAttempt: _f, ...delivery }: DeliveryRecord): Delivery => delivery

/** When the next try is due after `attempts` failed tries, or null when the schedule is used up. */
export const nextRetryAt = (attemptAt: number, attempts: number): number | null => {
  const delay = RETRY_DELAYS_MS[attempts - 1]
  return delay === undefined ? null : attemptAt + delay
}

export const isSuccess = (attempt: DeliveryAttempt): boolean => attempt.status !== null && attempt.status >= 200 && attempt.status < 300
