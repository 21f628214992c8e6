import { ApiError } from '../src/errors.js'
import { signupRequestSchema } from '../src/schemas/index.js'
import { fieldPath } from '../src/field-path.js'
import type {
  AdvanceClockResponse,
  ApiFault,
  CreateApiFaultRequest,
  DoctorQuery,
  DoctorReport,
  Event,
  EventType,
  Mode,
  Tier,
} from '../src/schemas/index.js'
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

/**
 * API faults of a merchant's test mode, for testing how your client survives
 * them (docs/faults-and-doctor.md): `sim.faults.add({ merchant: shop, route:
 * 'POST /v1/checkout-sessions', action: 'lose_response' })`.
 */
export interface SimulatorFaults {
  add(fault: CreateApiFaultRequest & { merchant: TestMerchant }): Promise<ApiFault>
  list(merchant: TestMerchant): Promise<ApiFault[]>
  remove(merchant: TestMerchant, id: string): Promise<void>
  /** Removes every fault of the merchant's test mode; returns how many there were. */
  clear(merchant: TestMerchant): Promise<number>
}

export interface Simulator {
  baseUrl: string
  createMerchant(tier?: Tier, details?: { name?: string; email?: string }): Promise<TestMerchant>
  clock(merchant: TestMerchant | string): MerchantClock
  /** The merchant's recorded events, oldest first (test mode unless asked). */
  events(merchant: TestMerchant | string, filter?: { type?: EventType; mode?: Mode }): Event[]
  faults: SimulatorFaults
  /** `bula doctor` on the merchant's test traffic: what your integration did that will hurt in production. */
  doctor(merchant: TestMerchant, query?: DoctorQuery): Promise<DoctorReport>
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
 * A merchant's details as `POST /_sim/merchants` takes them: a tier of `gold`
 * or an empty name used to be signed up all the same, and left a data file
 * that `bula serve --import` then refused.
 */
function signupRequestOf(tier: unknown, details: { name?: unknown; email?: unknown }, fallback: { name: string; email: string }) {
  const parsed = signupRequestSchema.safeParse({ tier, name: details.name ?? fallback.name, email: details.email ?? fallback.email })
  if (parsed.success) return parsed.data
  const [issue] = parsed.error.issues
  throw new TypeError(`createMerchant: invalid ${fieldPath(issue!.path)}: ${issue!.message}.`)
}

/**
 * A call to the simulator's own HTTP surface with the merchant's test key:
 * faults and doctor go through the routes a client would use, with their
 * checks (a route the API does not declare is refused there), and an error
 * answer is thrown as the ApiError it describes.
 */
async function simCall<T>(baseUrl: string, merchant: TestMerchant, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${merchant.secretKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = (await response.json()) as T & { error?: { code: string; message: string; param?: string } }
  if (!response.ok) throw new ApiError(response.status, answer.error?.code ?? 'unexpected_response', answer.error?.message ?? `HTTP ${response.status}`, answer.error?.param)
  return answer
}

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
  // A timeout of -5 was taken, and every delivery then failed at once.
  const timeout = options.webhookTimeoutMs
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) {
    throw new TypeError(`startSimulator: webhookTimeoutMs must be a whole number of milliseconds above 0, not ${String(timeout)}.`)
  }
  const start: StartOptions = {
    port: 0,
    dataFile: options.dataFile,
    log: options.log ?? (() => {}),
    logRequests: options.log !== undefined,
    webhookTimeoutMs: options.webhookTimeoutMs,
    allowedHosts: options.allowedHosts,
    // A test that fails before its sim.close() must still let the process end: `node --test`
    // otherwise waits for it forever and never prints the failure. Open connections still hold it until they close.
    keepProcessAlive: false,
  }
  const server = await startServer(start)
  const { ctx } = server
  let counter = 0
  /** A mistyped merchant id moved no clock and had no events, without a word: it is refused, naming it. */
  const knownMerchant = (merchant: TestMerchant | string): string => {
    const id = idOf(merchant)
    if (!ctx.store.get('merchants', id)) throw new TypeError(`No merchant ${JSON.stringify(id)} in this simulator: pass what createMerchant returned, or its id.`)
    return id
  }
  return {
    baseUrl: server.baseUrl,
    async createMerchant(tier = 'business', details = {}) {
      counter++
      const request = signupRequestOf(tier, details, { name: `Test ${tier} ${counter}`, email: `merchant-${counter}@bula.test` })
      const { merchant, keys } = signup(ctx, request)
      await ctx.store.commit()
      return { id: merchant.id, tier: request.tier, secretKey: keys.secret, publishableKey: keys.publishable }
    },
    clock(merchant) {
      const id = knownMerchant(merchant)
      return {
        now: () => ctx.clock.now(id),
        advance: (ms) => ctx.clock.advance(id, { ms }, 'both'),
        advanceTo: (time) => ctx.clock.advance(id, { to: time }, 'both'),
      }
    },
    events(merchant, filter = {}) {
      return ctx.store
        .group('events', 'byMerchantMode', merchantModeGroup(knownMerchant(merchant), filter.mode ?? 'test'))
        .map((id) => ctx.store.get('events', id)!)
        .filter((event) => filter.type === undefined || event.type === filter.type)
        .map(eventPayload)
    },
    faults: {
      add: async ({ merchant, ...fault }) => (await simCall<{ fault: ApiFault }>(server.baseUrl, merchant, 'POST', '/_sim/faults', fault)).fault,
      list: async (merchant) => (await simCall<{ data: ApiFault[] }>(server.baseUrl, merchant, 'GET', '/_sim/faults')).data,
      remove: async (merchant, id) => {
        await simCall(server.baseUrl, merchant, 'DELETE', `/_sim/faults/${encodeURIComponent(id)}`)
      },
      clear: async (merchant) => (await simCall<{ deleted: number }>(server.baseUrl, merchant, 'DELETE', '/_sim/faults')).deleted,
    },
    doctor: (merchant, query = {}) =>
      simCall<DoctorReport>(server.baseUrl, merchant, 'GET', `/_sim/doctor${query.sinceMs === undefined ? '' : `?sinceMs=${query.sinceMs}`}`),
    close: () => server.close(),
  }
}
