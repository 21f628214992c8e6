/**
 * Real time, injected everywhere else. This module is the one place in the
 * simulator that reads the system clock; tests pass a fake.
 */
export interface WallClock {
  now(): number
}

export const systemWallClock: WallClock = { now: () => Date.now() }
