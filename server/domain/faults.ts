import { createHash } from 'node:crypto'
import { MAX_FAULT_WAIT_MS, type WebhookFaults } from '../../src/schemas/index.js'

/**
 * A uniform draw in [0, 1) from the seed, a count and a label: repeatable,
 * and independent per label. A hash of what it is given, not randomness:
 * the same seed must give the same faults in every run, which the system
 * CSPRNG (server/ids.ts, the one module that draws random bytes) cannot.
 * Webhook delivery faults and API faults both draw here.
 */
export function draw(seed: number, n: number, label: string): number {
  return createHash('sha256').update(`${seed}:${n}:${label}`).digest().readUInt32BE(0) / 2 ** 32
}

export interface FaultPlan {
  failFirstAttempt: boolean
  duplicate: boolean
  /** Extra wait before the first attempt, merchant clock. */
  holdMs: number
}

/** The longest planFaults holds a first attempt back: the whole delay and the whole reorder window. */
export const MAX_HOLD_MS = 2 * MAX_FAULT_WAIT_MS

/** The faults of the `n`th delivery under this configuration. */
export function planFaults(faults: WebhookFaults, n: number): FaultPlan {
  let holdMs = 0
  if (draw(faults.seed, n, 'delay') < faults.delay) holdMs += faults.delayMs
  if (draw(faults.seed, n, 'reorder') < faults.reorder) holdMs += Math.floor(draw(faults.seed, n, 'window') * faults.reorderWindowMs)
  return {
    failFirstAttempt: draw(faults.seed, n, 'fail') < faults.fail,
    duplicate: draw(faults.seed, n, 'duplicate') < faults.duplicate,
    holdMs,
  }
}
