import type { AdvanceClockResponse, Event, EventType, Mode, Tier } from '../src/schemas/index.js'
import { eventPayload } from './events/payload.js'
import { signup } from './services/merchants.js'
import { startServer, type StartOptions } from './start.js'
import { merchantModeGroup } from './store/collections.js'

// The conformance suite, to run against this simulator or any other target over HTTP (docs/conformance.md).
export { runConformance, type ConformanceOptions, type ConformanceResult } from '../src/conformance/index.js'

export interface TestMerchant {
  id: string
  tier: Tier
  /** `sk_test_…` */
  secretKey: string
  /** `pk_test_…` */
  publishableKey: string
}

export interface MerchantClock {
  now(): number
  /** Moves the merchant's clock forward, running every due action (expiry, settlement, webhook retries) in order. */
  advance(ms: number): Promise<AdvanceClockResponse>
  advanceTo(time: number): Promise<AdvanceClockResponse>
}

export interface Simulator {
  baseUrl: string
  createMerchant(tier?: Tier, details?: { name?: string; email?: string }): Promise<TestMerchant>
  clock(merchant: TestMerchant | string): MerchantClock
  /** The merchant's recorded events, oldest first (test mode unless asked). */
  events(merchant: TestMerchant | string, filter?: { type?: EventType; mode?: Mode }): Event[]
  close(): Promise<void>
}

export interface StartSimulatorOptions {
  /** Keep data in this file instead of memory. */
  dataFile?: string
  /** Log lines (requests, warnings); silent by default. */
  log?: (line: string) => void
  webhookTimeoutMs?: number
  /**
   * Host names served besides localhost and IP addresses, whose http URLs
   * (success/cancel URLs, webhook endpoints) test mode accepts too: the
   * `--allowed-host` of `bula serve`.
   */
  allowedHosts?: readonly string[]
}

const idOf = (merchant: TestMerchant | string): string => (typeof merchant === 'string' ? merchant : merchant.id)

/**
 * A simulator for your own test suite, in this process, on a free port, in
 * memory: each test file can start its own and run in parallel with others.
 *
 *     const sim = await startSimulator()
 *     const shop = await sim.createMerchant('business')
 *     // ... call sim.baseUrl with shop.secretKey ...
 *     await sim.clock(shop).advance(24 * 60 * 60 * 1000)
 *     await sim.close()
 */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<Simulator> {
  const start: StartOptions = {
    port: 0,
    dataFile: options.dataFile,
    log: options.log ?? (() => {}),
    logRequests: options.log !== undefined,
    webhookTimeoutMs: options.webhookTimeoutMs,
    allowedHosts: options.allowedHosts,
  }
  const server = await startServer(start)
  const { ctx } = server
  let counter = 0
  return {
    baseUrl: server.baseUrl,
    async createMerchant(tier = 'business', details = {}) {
      counter++
      const { merchant, keys } = signup(ctx, {
        tier,
        name: details.name ?? `Test ${tier} ${counter}`,
        email: details.email ?? `merchant-${counter}@bula.test`,
      })
      await ctx.store.commit()
      return { id: merchant.id, tier, secretKey: keys.secret, publishableKey: keys.publishable }
    },
    clock(merchant) {
      const id = idOf(merchant)
      return {
        now: () => ctx.clock.now(id),
        advance: (ms) => ctx.clock.advance(id, { ms }),
        advanceTo: (time) => ctx.clock.advance(id, { to: time }),
      }
    },
    events(merchant, filter = {}) {
      return ctx.store
        .group('events', 'byMerchantMode', merchantModeGroup(idOf(merchant), filter.mode ?? 'test'))
        .map((id) => ctx.store.get('events', id)!)
        .filter((event) => filter.type === undefined || event.type === filter.type)
        .map(eventPayload)
    },
    close: () => server.close(),
  }
}
