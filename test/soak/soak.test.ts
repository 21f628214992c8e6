// A bounded soak: a real `bula serve` on a data file, 8 clients doing mixed
// work, a kill -9 and a restart in the middle. Afterwards every acknowledged
// object and event must be there, and the server's memory must have stayed
// flat while the clients kept going.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { call, signupMerchant } from '../helpers/http.js'
import { startReceiver } from '../helpers/receiver.js'
import { startServe, type ServeProcess } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

const CLIENTS = 8
const BEFORE_KILL_MS = 30_000
const AFTER_RESTART_MS = 45_000
/** Between two operations of one client: about 150 operations a second in all, so the data grows slowly enough for memory to be judged. */
const PAUSE_MS = 40
/** Memory is judged on the last part of the run, once the restarted process has warmed up. */
const MEMORY_WARMUP_MS = 10_000
/**
 * RSS growth allowed per acknowledged operation across that window. The
 * data lives in memory and grows with every operation (a session, its
 * idempotency record, events, deliveries), and V8 grows its heap in steps, so
 * "flat" means: growth explained by the data, about 10–40 KB an operation
 * here. A leak of whole requests or sockets per call would exceed it.
 */
const MEMORY_GROWTH_BOUND_KB_PER_OPERATION = 64

interface MerchantLedger {
  secret: string
  /** Session id → the status an acknowledged call left it in ('pending' until paid or cancelled). */
  sessions: Map<string, 'pending' | 'succeeded' | 'failed' | 'cancelled'>
  /**
   * Invoice id → 'draft' or 'sent', as acknowledged; 'sending' while a send
   * is unanswered, and after a kill cut it off: the simulator may have made
   * it durable before it died, so either status is right then.
   */
  invoices: Map<string, 'draft' | 'sending' | 'sent'>
  endpoints: Set<string>
  /** The offset the last acknowledged clock advance answered: the clock never goes back, so it stays at least this. */
  advancedMs: number
}

/** A small seeded generator, so a failing soak can be rerun with the same choices. */
function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(random: () => number, items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)]

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
}

/** Every event of the merchant's test mode, following `hasMore` page by page. */
async function allEvents(baseUrl: string, secret: string): Promise<{ event_id: string; type: string; data: { object: { id: string } } }[]> {
  const events = []
  for (let after: string | undefined; ; ) {
    const page = await call(baseUrl, 'GET', `/_sim/events?limit=100${after ? `&starting_after=${after}` : ''}`, { key: secret })
    expect(page.status).toBe(200)
    events.push(...page.body.data)
    if (!page.body.hasMore) return events
    after = page.body.data.at(-1).event_id
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

describe('soak', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('keeps every acknowledged object and event across a kill -9, with flat memory', { timeout: 180_000 }, async () => {
    const dataFile = path.join(await tempFolder('bula-soak-'), 'data.json')
    const receiver = await startReceiver()
    cleanups.push(() => receiver.close())
    let serve: ServeProcess = await startServe({ dataFile, args: ['--quiet'] })
    cleanups.push(async () => {
      await serve.stop()
    })
    /** Clients wait on this while the server is down. */
    let up: Promise<void> = Promise.resolve()
    const ledgers: MerchantLedger[] = []
    const counts = { acknowledged: 0, failed: 0 }
    /** Any 5xx the clients see; a request cut off by the kill has no answer at all and is not one of them. */
    const serverErrors: string[] = []
    let running = true

    const newMerchant = async (): Promise<MerchantLedger> => {
      const { keys } = await signupMerchant(serve.baseUrl, 'business')
      const ledger: MerchantLedger = { secret: keys.secret, sessions: new Map(), invoices: new Map(), endpoints: new Set(), advancedMs: 0 }
      ledgers.push(ledger)
      return ledger
    }

    /** One random operation; the ledger changes only once the server acknowledged it with a 2xx. */
    const operate = async (random: () => number, ledger: MerchantLedger): Promise<MerchantLedger> => {
      const api = async (method: string, route: string, body?: unknown, headers?: Record<string, string>) => {
        const response = await call(serve.baseUrl, method, route, { key: ledger.secret, body, headers })
        if (response.status >= 500) serverErrors.push(`${method} ${route} → ${response.status} ${JSON.stringify(response.body)}`)
        return { ok: response.status >= 200 && response.status < 300, body: response.body }
      }
      const pending = [...ledger.sessions].filter(([, status]) => status === 'pending').map(([id]) => id)
      const roll = random()
      if (roll < 0.3) {
        const created = await api('POST', '/v1/checkout-sessions', { amount: 100 + Math.floor(random() * 10_000), currency: 'FJD' }, { 'idempotency-key': randomUUID() })
        if (created.ok) ledger.sessions.set(created.body.id, 'pending')
      } else if (roll < 0.45 && pending.length > 0) {
        const id = pick(random, pending)!
        const outcome = random() < 0.8 ? 'succeeded' : 'failed'
        if ((await api('POST', `/_sim/checkout-sessions/${id}/pay`, { outcome })).ok) ledger.sessions.set(id, outcome)
      } else if (roll < 0.55 && pending.length > 0) {
        const id = pick(random, pending)!
        if ((await api('POST', `/v1/checkout-sessions/${id}/cancel`)).ok) ledger.sessions.set(id, 'cancelled')
      } else if (roll < 0.7) {
        await api('GET', '/v1/checkout-sessions?limit=20')
      } else if (roll < 0.8) {
        const invoice = { customerName: 'Soak Customer', dueDate: '2031-01-31', items: [{ description: 'Kava', quantity: 1 + Math.floor(random() * 5), unitPrice: 1500 }] }
        const created = await api('POST', '/v1/invoices', invoice, { 'idempotency-key': randomUUID() })
        if (created.ok) ledger.invoices.set(String(created.body.id), 'draft')
      } else if (roll < 0.85) {
        const draft = pick(random, [...ledger.invoices].filter(([, status]) => status === 'draft').map(([id]) => id))
        if (draft) {
          ledger.invoices.set(draft, 'sending')
          const sent = await api('POST', `/v1/invoices/${draft}/send`, undefined, { 'idempotency-key': randomUUID() })
          ledger.invoices.set(draft, sent.ok ? 'sent' : 'draft')
        }
      } else if (roll < 0.88 && ledger.endpoints.size < 2) {
        const registered = await api('POST', '/v1/webhook-endpoints', { url: receiver.url })
        if (registered.ok) ledger.endpoints.add(registered.body.endpoint.id)
      } else if (roll < 0.93) {
        const advanced = await api('POST', '/_sim/clock/advance', { ms: 60 * 60 * 1000 })
        if (advanced.ok) ledger.advancedMs = Math.max(ledger.advancedMs, advanced.body.offsetMs)
      } else if (roll < 0.995) {
        await api('GET', '/_sim/events?limit=50')
      } else {
        return newMerchant()
      }
      return ledger
    }

    const client = async (n: number): Promise<void> => {
      const random = seeded(n + 1)
      let ledger = await newMerchant()
      while (running) {
        await up
        try {
          ledger = await operate(random, ledger)
          counts.acknowledged++
        } catch {
          // The server was killed under this request: it was never acknowledged.
          counts.failed++
        }
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
      }
    }

    const clients = Array.from({ length: CLIENTS }, (_, n) => client(n))
    await new Promise((resolve) => setTimeout(resolve, BEFORE_KILL_MS))
    let restarted!: () => void
    up = new Promise<void>((resolve) => (restarted = resolve))
    await serve.kill9()
    serve = await startServe({ dataFile, args: ['--quiet'] })
    restarted()

    const pid = serve.process.pid!
    const samples: { rssMb: number; operations: number }[] = []
    const restartedAt = performance.now()
    while (performance.now() - restartedAt < AFTER_RESTART_MS) {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      if (performance.now() - restartedAt > MEMORY_WARMUP_MS) samples.push({ rssMb: await rssMb(pid), operations: counts.acknowledged })
    }
    running = false
    await Promise.all(clients)

    // Nothing is in flight now: what the events list shows is durable, and must survive one more kill.
    const eventsBefore = new Map<string, string[]>()
    for (const ledger of ledgers) eventsBefore.set(ledger.secret, (await allEvents(serve.baseUrl, ledger.secret)).map((event) => event.event_id))
    await serve.kill9()
    serve = await startServe({ dataFile, args: ['--quiet'] })

    const missing: string[] = []
    for (const ledger of ledgers) {
      const get = (route: string) => call(serve.baseUrl, 'GET', route, { key: ledger.secret })
      if ((await get('/v1/merchants/me')).status !== 200) missing.push(`merchant of ${ledger.secret.slice(0, 12)}…`)
      const events = await allEvents(serve.baseUrl, ledger.secret)
      const eventIds = new Set(events.map((event) => event.event_id))
      for (const id of eventsBefore.get(ledger.secret)!) if (!eventIds.has(id)) missing.push(`event ${id}`)
      const endedEvents = new Set(events.map((event) => `${event.type} ${event.data.object.id}`))
      for (const [id, status] of ledger.sessions) {
        const session = await get(`/v1/checkout-sessions/${id}`)
        if (session.status !== 200) missing.push(`session ${id}: ${session.status}`)
        // Pending sessions may have expired as clocks moved; a session an acknowledged call ended stays so.
        else if (status !== 'pending' && session.body.status !== status) missing.push(`session ${id} is ${session.body.status}, not ${status}`)
        if (status !== 'pending' && !endedEvents.has(`checkout_session.${status} ${id}`)) missing.push(`checkout_session.${status} event of ${id}`)
      }
      for (const [id, status] of ledger.invoices) {
        const invoice = await get(`/v1/invoices/${id}`)
        const expected = status === 'sending' ? ['draft', 'sent'] : [status]
        if (invoice.status !== 200) missing.push(`invoice ${id} (${status}): ${invoice.status}`)
        else if (!expected.includes(invoice.body.status)) missing.push(`invoice ${id} is ${invoice.body.status}, not ${status}`)
      }
      const endpoints = new Set(((await get('/v1/webhook-endpoints')).body.data as { id: string }[]).map((endpoint) => endpoint.id))
      for (const id of ledger.endpoints) if (!endpoints.has(id)) missing.push(`webhook endpoint ${id}`)
      if ((await get('/_sim/clock')).body.offsetMs < ledger.advancedMs) missing.push(`clock advances of ${ledger.secret.slice(0, 12)}…`)
    }
    expect(missing).toEqual([])
    expect(serverErrors).toEqual([])
    expect(counts.acknowledged).toBeGreaterThan(2_000)
    expect(ledgers.flatMap((ledger) => [...ledger.sessions.values()]).filter((status) => status !== 'pending').length).toBeGreaterThan(100)

    const third = Math.floor(samples.length / 3)
    const first = samples.slice(0, third)
    const last = samples.slice(-third)
    const growthKb = (median(last.map((s) => s.rssMb)) - median(first.map((s) => s.rssMb))) * 1024
    const operations = median(last.map((s) => s.operations)) - median(first.map((s) => s.operations))
    expect(operations).toBeGreaterThan(500)
    expect(growthKb / operations, `RSS samples (MB): ${samples.map((s) => Math.round(s.rssMb)).join(' ')}`).toBeLessThan(
      MEMORY_GROWTH_BOUND_KB_PER_OPERATION,
    )
  })
})
