import type { RuleId } from './spec-rules.js'
import type { CaseContext } from './context.js'

/**
 * What a case needs besides a test secret key. A need the target cannot meet
 * skips the case with the reason, never fails it.
 *
 * - `sim`: the simulator's `/_sim` controls (clock, customer stand-in,
 *   settings, signup, verification);
 * - `webhooks`: a receiver the target can reach (its own on loopback for a
 *   local target, else `--webhook-url`);
 * - `publishable-key`: a `pk_test_` key of the same merchant;
 * - `business`: a Business account (Invoices, quotes); with `/_sim` every
 *   case gets one unless it needs `individual`;
 * - `individual`: an Individual account;
 * - `live`: live keys, which only `/_sim` verification can mint.
 */
export type Need = 'sim' | 'webhooks' | 'publishable-key' | 'business' | 'individual' | 'live'

export interface ConformanceCase {
  /** `section/rule`, e.g. `checkout-sessions/amount-max`. */
  id: string
  /** What it checks, in a line. */
  title: string
  /** The spec rules it checks (src/conformance/spec-rules.ts). */
  rules: readonly RuleId[]
  needs?: readonly Need[]
  run(t: CaseContext): Promise<void>
}

export type Outcome = 'pass' | 'fail' | 'skip'

export interface CaseResult {
  id: string
  title: string
  rules: readonly RuleId[]
  outcome: Outcome
  /** Why it was skipped, or what failed. */
  reason?: string
  durationMs: number
}

/** A case's recording, as `--record` writes it (after the transformers). */
export interface CaseRecording {
  case: string
  title: string
  outcome: Outcome
  reason?: string
  steps: unknown[]
}

export interface Difference {
  case: string
  /** JSON path inside the case's recording, e.g. `steps[2].response.status`. */
  path: string
  /** What the recording holds (undefined: nothing there). */
  recorded?: unknown
  /** What this run got (undefined: nothing there). */
  actual?: unknown
  message: string
}

export interface ConformanceOptions {
  /** The service or simulator, e.g. `http://127.0.0.1:4111`. */
  baseUrl: string
  /** An `sk_test_` key; needed when the target has no `/_sim` to sign up merchants with. */
  apiKey?: string
  /** A `pk_test_` key of the same merchant. */
  publishableKey?: string
  /** Sections (`webhooks`) or case ids (`webhooks/signature`) to run; all when empty. */
  only?: readonly string[]
  /**
   * A public URL the target can reach that forwards to this suite's receiver
   * (listening on `webhookPort`); without it a local target gets a receiver on loopback.
   */
  webhookUrl?: string
  /** The local port of the receiver (0: any free port). */
  webhookPort?: number
  /** Save each case's normalized steps as `<dir>/<section>/<rule>.json`. */
  record?: string
  /** Compare each case's normalized steps with the recordings in this folder. */
  compare?: string
  /** How long to wait for a webhook delivery (default 5 s). */
  deliveryTimeoutMs?: number
  /** How long one exchange (answer included) may take before it fails as a timeout (default 60 s, as the CLI's client). */
  timeoutMs?: number
  /** Called with a line per HTTP exchange. */
  log?: (line: string) => void
  /** Called as each case ends, for progress output. */
  onCase?: (result: CaseResult) => void
}

export interface ConformanceResult {
  baseUrl: string
  /** Whether the target has the simulator's `/_sim` controls. */
  sim: boolean
  passed: boolean
  summary: { passed: number; failed: number; skipped: number; total: number }
  cases: CaseResult[]
  /** With `compare`: every difference from the recordings. */
  differences?: Difference[]
  /** With `record`: the folder written. */
  recorded?: string
  durationMs: number
}
