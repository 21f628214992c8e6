import { apiError } from '../domain/error-catalog.js'
import type { KeyType } from '../../src/schemas/index.js'

/** Checkout Session creations per key per minute (spec, Limits). */
export const CREATE_LIMITS: Record<KeyType, number> = { secret: 10_000, publishable: 120 }
const WINDOW_MS = 60_000

/**
 * Fixed one-minute windows per key, on the merchant's clock, so a test can
 * advance the clock instead of waiting out a 429. Counts live in memory: a
 * restart forgets them, as a restart of the real service's edge would.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>()

  take(keyId: string, type: KeyType, now: number): void {
    const limit = CREATE_LIMITS[type]
    let window = this.windows.get(keyId)
    if (!window || now - window.start >= WINDOW_MS || now < window.start) {
      window = { start: now, count: 0 }
      this.windows.set(keyId, window)
    }
    if (window.count >= limit) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000))
      throw apiError('rate_limited', `Too many Checkout Sessions created with this ${type} key: at most ${limit} a minute. Retry in ${retryAfter} s.`, { headers: { 'Retry-After': String(retryAfter) } })
    }
    window.count++
  }
}
