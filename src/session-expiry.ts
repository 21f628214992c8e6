/** How long after now a Checkout Session may expire (spec, Limits), on the merchant's clock. */
export const SESSION_EXPIRY_MS = { min: 30 * 60 * 1000, max: 24 * 60 * 60 * 1000 } as const

/**
 * What the shortest expiry gets on top: the simulator checks the window
 * against its now when the create arrives, milliseconds after the clock was
 * read, so an expiry of exactly 30 minutes from the clock read falls short.
 */
const SHORTEST_EXPIRY_SLACK_MS = 1_000

/**
 * `expiresAt` for a session that expires `ms` after `clockNow`, the
 * merchant's clock as read just before the create. An expiry within a
 * second of the shortest is sent as that second more, so `30m` is not
 * refused by the time the request took; 24 hours fits as it is (the create
 * arrives later than the read, never earlier). `bula sessions create`
 * refuses a duration outside the window before it reads the clock
 * (parseExpiresIn).
 */
export function expiresAtFrom(clockNow: number, ms: number): number {
  const shortest = SESSION_EXPIRY_MS.min + SHORTEST_EXPIRY_SLACK_MS
  return clockNow + (ms >= SESSION_EXPIRY_MS.min && ms < shortest ? shortest : ms)
}
