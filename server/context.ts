import { EventEmitter } from 'node:events'
import type { Mode } from '../src/schemas/index.js'
import { ClockService } from './clock/clock-service.js'
import type { WallClock } from './clock/wall-clock.js'
import type { ApiKeyRecord } from './domain/api-key.js'
import type { MerchantRecord } from './domain/merchant.js'
import { RETRY_DELAYS_MS } from './domain/webhook-endpoint.js'
import { ApiFaults } from './services/api-faults.js'
import { RateLimiter } from './services/rate-limit.js'
import { RequestLog } from './services/request-log.js'
import type { Collections } from './store/collections.js'
import type { Store } from './store/types.js'
import { Templates } from './templates.js'

/** What every service needs. One per running simulator; nothing lives at module level. */
export interface ServiceContext {
  store: Store<Collections>
  clock: ClockService
  /** The simulator's base URL, for hosted links; set once the server listens. */
  urls: { base: string }
  /** Names given with `--allowed-host`: served like loopback, and accepted in http URLs in test mode (docs/simulator.md, "http URLs of allowed hosts in test mode"). */
  allowedHosts: readonly string[]
  templates: Templates
  rateLimits: RateLimiter
  log: (line: string) => void
  /** Emits `event` (an EventRecord, once on disk) for live listeners, and `shutdown` when the server stops. */
  eventBus: EventEmitter
  /** How long a webhook receiver has to answer one delivery. */
  webhookTimeoutMs: number
  requestLog: RequestLog
  /** The merchants' API faults (`/_sim/faults`), in memory. */
  apiFaults: ApiFaults
  /**
   * How many times each merchant's mode (`merchantId:mode`) was replaced
   * whole by a state reset or import: work that was out meanwhile (a webhook
   * attempt) belongs to the state before, and records nothing in the new one.
   */
  stateReplacements: Map<string, number>
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000

export function createServiceContext(options: {
  store: Store<Collections>
  wall: WallClock
  log: (line: string) => void
  webhookTimeoutMs?: number
  allowedHosts?: readonly string[]
}): ServiceContext {
  const webhookTimeoutMs = options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS
  const clock = new ClockService({
    store: options.store,
    wall: options.wall,
    onError: (error, what) => options.log(`${what} failed: ${error instanceof Error ? error.message : String(error)}`),
    networkWaitMs: webhookTimeoutMs,
    // A delivery's answer comes within the timeout, and its first retry a minute after it: a timeout set over a
    // minute (startSimulator takes any) must not let later jobs run before that retry.
    networkEffectsAfterMs: Math.min(webhookTimeoutMs, RETRY_DELAYS_MS[0]),
  })
  const eventBus = new EventEmitter().setMaxListeners(0)
  return {
    store: options.store,
    clock,
    urls: { base: '' },
    allowedHosts: options.allowedHosts ?? [],
    templates: new Templates(),
    rateLimits: new RateLimiter(),
    log: options.log,
    eventBus,
    webhookTimeoutMs,
    requestLog: new RequestLog(eventBus),
    apiFaults: new ApiFaults(),
    stateReplacements: new Map(),
  }
}

/** The authenticated caller of a request: its key decides the mode. */
export interface Caller {
  merchant: MerchantRecord
  key: ApiKeyRecord
  mode: Mode
}
