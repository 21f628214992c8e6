import { performance } from 'node:perf_hooks'
import { invalidRequest } from '../../src/errors.js'
import { MAX_ADVANCE_MS, type AdvanceClockRequest, type AdvanceClockResponse, type RanAction } from '../../src/schemas/clock.js'
import type { Mode } from '../../src/schemas/index.js'
import { MAX_CLOCK_OFFSET_MS, MIN_CLOCK_OFFSET_MS } from '../domain/records.js'
import { newId } from '../ids.js'
import type { Collections } from '../store/collections.js'
import type { Store } from '../store/types.js'
import type { JobRecord } from './job.js'
import { MinHeap, type HeapEntry } from './min-heap.js'
import type { WallClock } from './wall-clock.js'

/**
 * What a job did, in a sentence for `clock advance` output, and the mode of
 * the objects it names: an advance shows a key only its own mode's reports
 * (docs/security.md). `null` is the merchant's as a whole, shown to both.
 */
export interface JobReport {
  mode: Mode | null
  description: string
}

/** What a job did (one report per mode it acted in); nothing when it had nothing to do. */
export type JobHandler = (job: JobRecord) => JobReport | JobReport[] | void | Promise<JobReport | void>

/** A report of `ran`, with the mode it is shown to. */
type ModeRanAction = RanAction & { mode: Mode | null }

/** Longest wait between two looks at the queue, so a change of the system clock is noticed. */
const MAX_TIMER_MS = 60_000
/** Documents read per turn of the event loop by the scan for derived jobs. */
const SCAN_SLICE = 2_000
/** How often housekeeping runs as real time passes (besides after every tick and advance). */
const SWEEP_INTERVAL_MS = 10 * 60_000
/** How long a finished network job's record waits to be written with others that finish about then. */
const SETTLED_COMMIT_MS = 20
/** Jobs of one merchant waiting on the network (webhook deliveries) at once: receivers are called concurrently, within this bound. */
export const MAX_IN_FLIGHT = 16

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as Promise<unknown> | undefined)?.then === 'function'

/**
 * The merchants' clocks (real time plus a per-merchant offset) and the
 * scheduler of due actions on them. Actions run in time order, both as real
 * time passes and when a merchant's clock is advanced; while an action runs,
 * the merchant's clock reads exactly its due time, so what it records
 * (an expiry, a Payout's createdAt) carries that time.
 */
/**
 * A due action that follows from one document's own fields, such as a
 * pending Checkout Session's expiry at its `expiresAt`: kept in memory only,
 * rebuilt from the documents at start-up, never a job document.
 */
export interface DerivedJob<C extends keyof Collections> {
  collection: C
  /** When the action is due on the document's merchant's clock, or undefined when the document needs none. */
  dueAt(doc: Collections[C]): number | undefined
  /** Runs at that time, on the document as it is then; what it did, in a sentence (reported in the document's mode), or nothing. */
  run(doc: Collections[C]): string | void
}

type AnyDerivedJob = DerivedJob<keyof Collections>
type MerchantDoc = { id: string; merchantId: string; mode: Mode }

export class ClockService {
  private readonly heaps = new Map<string, MinHeap>()
  private readonly handlers = new Map<string, JobHandler>()
  /** Job kinds whose handlers await the network (a webhook delivery): they take one of a merchant's MAX_IN_FLIGHT slots. */
  private readonly networkKinds = new Set<string>()
  /**
   * Due network jobs put aside while every slot of their merchant is held by
   * receivers that have not answered, in their order; as slots free, as many
   * go back to the queue (requeueWaiting), so they never hold up what needs
   * no network.
   */
  private readonly waitingForSlot = new Map<string, MinHeap>()
  private readonly derived = new Map<string, AnyDerivedJob>()
  private readonly locks = new Map<string, Promise<unknown>>()
  /** While a job runs, its merchant's clock reads the job's due time exactly. */
  private readonly pinned = new Map<string, number>()
  /**
   * Advances waiting on receivers, by merchant: anything newly queued for that
   * merchant (a delivery of an event made meanwhile, a new endpoint's
   * webhook.verified) ends the wait, so that it goes out now, not when the
   * receivers the advance waits on answer or time out.
   */
  private readonly advanceWakers = new Map<string, () => void>()
  /** During an advance, the merchant's clock reads at most its target, however long receivers take to answer. */
  private readonly ceilings = new Map<string, number>()
  /** Jobs whose handlers still await the network (a delivery), per merchant, with the job each is for. */
  private readonly inFlight = new Map<string, Map<Promise<void>, JobRecord>>()
  private seq = 0
  /** Housekeeping that follows the clocks (registerSweep), and the run in progress. */
  private readonly sweeps: (() => Promise<void>)[] = []
  private sweeping: Promise<void> | null = null
  /** The background scan of documents for derived jobs (scanDerived), and which one is current. */
  private scanning: Promise<void> | null = null
  private scanGeneration = 0
  private sweepTimer: NodeJS.Timeout | undefined
  private settledCommit: NodeJS.Timeout | undefined
  private timer: NodeJS.Timeout | undefined
  private timerAt = Infinity
  private running = false
  private stopped = true

  constructor(
    private readonly deps: {
      store: Store<Collections>
      wall: WallClock
      /** A failed action is reported and skipped, never retried in a loop. */
      onError: (error: unknown, what: string) => void
      /**
       * How long, in all, one advance (or tick) waits for jobs that await the
       * network before it goes on without them; they finish in the background.
       * The webhook timeout: one hung receiver costs an advance one timeout.
       */
      networkWaitMs?: number
      /**
       * How soon after its time a job awaiting the network may change what
       * comes next (a retry falls due, an endpoint turns active): the earlier
       * of its answer (the webhook timeout) and its first retry. Jobs due
       * before that need not wait for it. Default 0: everything waits.
       */
      networkEffectsAfterMs?: number
    },
  ) {
    this.reload()
  }

  /** Rebuilds the queue from the store's jobs and documents, after the store was changed behind the scheduler (a state import). */
  reload(): void {
    this.heaps.clear()
    this.waitingForSlot.clear()
    for (const job of [...this.deps.store.values('jobs')]) {
      // A job document of a derived kind (data files of earlier versions, or forged) is dropped: the documents say what is due.
      if (this.derived.has(job.kind)) this.deps.store.delete('jobs', job.id)
      else this.enqueue(job)
    }
    this.scanDerived()
    this.arm()
  }

  /** `awaitsNetwork`: the handler calls a receiver, so it runs in one of the merchant's MAX_IN_FLIGHT slots. */
  register(kind: string, handler: JobHandler, options: { awaitsNetwork?: boolean } = {}): void {
    this.handlers.set(kind, handler)
    if (options.awaitsNetwork) this.networkKinds.add(kind)
  }

  /**
   * Registers a derived job kind and queues it for every document that needs
   * it now. Job documents of that kind (from earlier data files) are deleted:
   * they said the same as the documents.
   */
  derive<C extends keyof Collections>(kind: string, job: DerivedJob<C>): void {
    this.derived.set(kind, job as unknown as AnyDerivedJob)
    for (const stored of [...this.deps.store.values('jobs')]) if (stored.kind === kind) this.deps.store.delete('jobs', stored.id)
    this.scanDerived()
  }

  /** Queues the derived jobs `doc` needs as it is now (after a put); a queued time that no longer matches is skipped when it comes up. */
  track<C extends keyof Collections>(collection: C, doc: Collections[C] & MerchantDoc): void {
    for (const [kind, job] of this.derived) {
      if (job.collection !== collection) continue
      const dueAt = job.dueAt(doc)
      if (dueAt !== undefined) this.enqueueDerived(kind, doc, dueAt)
    }
    this.arm()
  }

  /**
   * Queues the derived jobs of every document, in the background a slice at
   * a time: at start-up that means reading every Checkout Session, which
   * would otherwise hold the event loop (and the ready line) for a while. An
   * advance waits for the scan; real time's due jobs run once it has seen
   * them. A newer scan (reload, another kind) supersedes a running one.
   */
  private scanDerived(): void {
    const generation = ++this.scanGeneration
    const scan = (async () => {
      // After the current turn: kinds registered together share one scan.
      await Promise.resolve()
      // The documents start-up left to locate, in the background too: read now, they would all be located at once.
      await this.deps.store.located()
      if (generation !== this.scanGeneration) return
      const collections = new Set([...this.derived.values()].map((job) => job.collection))
      for (const collection of collections) {
        const kinds = [...this.derived].filter(([, job]) => job.collection === collection)
        let seen = 0
        for (const doc of this.deps.store.values(collection)) {
          if (generation !== this.scanGeneration) return
          for (const [kind, job] of kinds) {
            const dueAt = job.dueAt(doc)
            if (dueAt !== undefined) this.enqueueDerived(kind, doc as MerchantDoc, dueAt)
          }
          if (++seen % SCAN_SLICE === 0) await new Promise((resolve) => setImmediate(resolve))
        }
      }
      if (generation === this.scanGeneration) this.arm()
    })().catch((error: unknown) => {
      // A superseded scan that met the same failure says nothing: the current one reports it.
      if (generation === this.scanGeneration) this.deps.onError(error, 'reading what is due')
    })
    this.scanning = scan
    void scan.finally(() => {
      if (this.scanning === scan) this.scanning = null
    })
  }

  /** The merchant's current time; real time for an unknown merchant. */
  now(merchantId: string): number {
    const pinned = this.pinned.get(merchantId)
    if (pinned !== undefined) return pinned
    const merchant = this.deps.store.get('merchants', merchantId)
    return Math.min(this.deps.wall.now() + (merchant?.clockOffsetMs ?? 0), this.ceilings.get(merchantId) ?? Infinity)
  }

  /** Real time, for what must not move with a merchant's clock (dashboard sign-ins). */
  wallNow(): number {
    return this.deps.wall.now()
  }

  /** Real time in Unix seconds, for what must not follow the merchant's clock (webhook signature timestamps, docs/simulator.md, "The clock"). */
  wallSeconds(): number {
    return Math.floor(this.deps.wall.now() / 1000)
  }

  offset(merchantId: string): number {
    return this.deps.store.get('merchants', merchantId)?.clockOffsetMs ?? 0
  }

  schedule(merchantId: string, kind: string, dueAt: number, payload: Record<string, unknown> = {}): JobRecord {
    const job: JobRecord = { id: newId('job'), merchantId, dueAt, kind, payload }
    this.deps.store.put('jobs', job)
    this.enqueue(job)
    this.arm()
    return job
  }

  /** A cancelled job stays in the heap and is skipped when it comes up. */
  cancel(jobId: string): void {
    this.deps.store.delete('jobs', jobId)
  }

  /**
   * Moves the merchant's clock to `to`, or `ms` ahead, running every job due
   * on the way in time order. The clock lands on the target: `to` reads
   * exactly `to` when the answer is sent, and `ms` moves the offset by
   * exactly `ms` less the real time spent waiting for receivers, so a
   * 24-hour advance that waited on a hung receiver still moves the clock 24
   * hours, not 24 hours and the seconds it waited. Until the answer, the
   * clock reads at most the target. `ran` holds what concerns the mode
   * `shown` (the caller's key's), or both modes for an in-process caller
   * that owns the whole simulator (bula-tools/testing).
   */
  async advance(merchantId: string, request: AdvanceClockRequest, shown: Mode | 'both'): Promise<AdvanceClockResponse> {
    return this.withLock(merchantId, async () => {
      while (this.scanning) await this.scanning
      const start = this.now(merchantId)
      const target = request.to ?? start + (request.ms ?? 0)
      if (target < start) {
        // Both times as ISO too: a developer reads which of them is off, not two 13-digit numbers.
        const iso = (ms: number) => `${new Date(ms).toISOString()}, ${ms}`
        throw invalidRequest(`The clock never goes back: \`to\` (${iso(target)}) is before now (${iso(start)}).`, 'to')
      }
      if (target - start > MAX_ADVANCE_MS) {
        throw invalidRequest(`One advance moves the clock at most ${MAX_ADVANCE_MS} ms (400 days).`, 'to')
      }
      if (target - this.deps.wall.now() > MAX_CLOCK_OFFSET_MS) {
        throw invalidRequest(`The clock runs at most a century (${MAX_CLOCK_OFFSET_MS} ms) ahead of real time.`, request.to === undefined ? 'ms' : 'to')
      }
      const originalOffset = this.offset(merchantId)
      this.ceilings.set(merchantId, target)
      try {
        const { ran, waitedMs } = await this.runDue(merchantId, target, true)
        this.setOffset(merchantId, request.to === undefined ? originalOffset + (target - start) - waitedMs : target - this.deps.wall.now())
        // Read before the disk write, so the answer shows the time the advance reached.
        const reached = {
          now: this.now(merchantId),
          offsetMs: this.offset(merchantId),
          ran: ran.filter((action) => shown === 'both' || action.mode === null || action.mode === shown).map(({ mode: _mode, ...action }) => action),
        }
        await this.deps.store.commit()
        if (!this.stopped) void this.sweep()
        return reached
      } finally {
        this.ceilings.delete(merchantId)
        this.arm()
      }
    })
  }

  /**
   * Runs `fn` once no advance or due action of the merchant is running, and
   * holds the next ones off until it ends. A state reset or import replaces
   * what an advance works on (its queue, the clock's offset): interleaved,
   * an advance waiting on a receiver would write its own offset over an
   * imported one, and move the clock back.
   */
  exclusive<T>(merchantId: string, fn: () => T): Promise<T> {
    return this.withLock(merchantId, async () => fn())
  }

  /**
   * Housekeeping that depends on the merchants' clocks but is nobody's due
   * action (dropping idempotency records past their replay window): run in
   * the background after every tick and advance, and every ten minutes.
   */
  registerSweep(sweep: () => Promise<void>): void {
    this.sweeps.push(sweep)
  }

  /** Runs the sweeps now, or waits for the run in progress and then runs them again (something may have changed since it began). */
  async sweep(): Promise<void> {
    while (this.sweeping) await this.sweeping
    this.sweeping = (async () => {
      for (const sweep of this.sweeps) {
        try {
          await sweep()
        } catch (error) {
          this.deps.onError(error, 'housekeeping')
        }
      }
    })()
    try {
      await this.sweeping
    } finally {
      this.sweeping = null
    }
  }

  start(): void {
    this.stopped = false
    this.arm()
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS)
    this.sweepTimer.unref()
  }

  /** Stops the timers and waits for actions already running, those finishing in the background too. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    clearInterval(this.sweepTimer)
    // What it would have written, the store's close writes.
    clearTimeout(this.settledCommit)
    this.settledCommit = undefined
    this.timer = undefined
    this.scanGeneration++
    await this.scanning
    await this.sweeping
    await Promise.allSettled([...this.locks.values()])
    await Promise.allSettled([...this.inFlight.values()].flatMap((jobs) => [...jobs.keys()]))
  }

  private enqueue(job: JobRecord): void {
    this.heapOf(job.merchantId).push({ dueAt: job.dueAt, seq: this.seq++, id: job.id })
    this.advanceWakers.get(job.merchantId)?.()
  }

  private enqueueDerived(kind: string, doc: MerchantDoc, dueAt: number): void {
    this.heapOf(doc.merchantId).push({ dueAt, seq: this.seq++, id: doc.id, kind })
    this.advanceWakers.get(doc.merchantId)?.()
  }

  private heapOf(merchantId: string): MinHeap {
    let heap = this.heaps.get(merchantId)
    if (!heap) {
      heap = new MinHeap()
      this.heaps.set(merchantId, heap)
    }
    return heap
  }

  /**
   * A derived job that is still due as queued: its document exists, belongs
   * to this merchant, and still asks for this time (a session paid or
   * expired since no longer does). As a JobRecord, for the loop below.
   */
  private derivedJob(merchantId: string, entry: HeapEntry): { job: JobRecord; run: () => ReturnType<JobHandler> } | undefined {
    const derived = this.derived.get(entry.kind!)
    const doc = derived && (this.deps.store.get(derived.collection, entry.id) as (Collections[keyof Collections] & MerchantDoc) | undefined)
    if (!derived || !doc || doc.merchantId !== merchantId || derived.dueAt(doc) !== entry.dueAt) return undefined
    const job: JobRecord = { id: entry.id, merchantId, dueAt: entry.dueAt, kind: entry.kind!, payload: {} }
    return {
      job,
      run: () => {
        const description = derived.run(doc)
        return description === undefined ? undefined : { mode: doc.mode, description }
      },
    }
  }

  /** Within the stored range: behind real time by at most MIN_CLOCK_OFFSET_MS, which only 400 days of waiting on receivers would reach. */
  private setOffset(merchantId: string, offset: number): void {
    const merchant = this.deps.store.get('merchants', merchantId)
    const clockOffsetMs = Math.max(MIN_CLOCK_OFFSET_MS, offset)
    if (merchant && merchant.clockOffsetMs !== clockOffsetMs) this.deps.store.put('merchants', { ...merchant, clockOffsetMs })
  }

  /**
   * Runs the merchant's jobs due at or before `target` in time order,
   * including jobs they schedule. A job whose handler awaits the network (a
   * webhook delivery) is not waited for on its own: the loop goes on with
   * jobs due at the same time, so receivers are called concurrently (at most
   * MAX_IN_FLIGHT), and waits for them before a time more than one webhook
   * timeout after theirs, because what they do (schedule a retry, turn an
   * endpoint active) may come before it; anything queued meanwhile for the
   * merchant ends the wait, to be run if it is due. That waiting has one
   * budget per run (`networkWaitMs`); once spent, jobs still waiting finish
   * in the background and schedule their retries when they do, so a hung
   * receiver holds an advance about one webhook timeout, not one per attempt.
   * As real time passes (`moveClock` false) nothing waits: a retry always
   * falls due after the jobs already due, and a tick that waited would hold
   * every merchant's due jobs behind one hung receiver.
   */
  private async runDue(merchantId: string, target: number, moveClock: boolean): Promise<{ ran: ModeRanAction[]; waitedMs: number }> {
    const ran: ModeRanAction[] = []
    if (!this.heaps.has(merchantId)) return { ran, waitedMs: 0 }
    const inFlight = this.inFlightOf(merchantId)
    // Real waiting, measured on a monotonic clock: the wall clock (and a test's manual one) is about dates.
    const deadline = performance.now() + (moveClock ? (this.deps.networkWaitMs ?? 0) : 0)
    const budgetLeft = (): boolean => performance.now() < deadline
    /** Real time spent waiting for receivers: an advance does not let it move the merchant's clock. */
    let waitedMs = 0
    const settle = async (which: 'all' | 'one'): Promise<void> => {
      // While the advance waits, requests go on: the clock they read stops at the next action not yet run, so
      // nothing they do can come after it in time and before it in fact (a payment swept by an earlier run). Never
      // below what it reads now: a delivery back from waiting for a slot, or a queue rebuilt by an import, may be due
      // earlier, and the clock never goes back.
      if (moveClock) this.ceilings.set(merchantId, Math.max(this.now(merchantId), Math.min(target, this.heapOf(merchantId).earliestDueAt())))
      // Nothing in flight is nothing to wait for: a busy event loop's delay in resuming is not a receiver's.
      if (inFlight.size === 0) return
      const began = performance.now()
      const queued = new Promise<void>((resolve) => this.advanceWakers.set(merchantId, resolve))
      try {
        await this.settle(inFlight, deadline, which, queued)
      } finally {
        this.advanceWakers.delete(merchantId)
      }
      // Another merchant's reset or import may have rebuilt the queue meanwhile (reload), whose derived jobs (an
      // expiry) come back in slices: go on only once they are all back, as advance() starts only then.
      while (this.scanning) await this.scanning
      waitedMs += performance.now() - began
    }
    /** Whether `ran` still takes descriptions: a job that finishes after the run has answered is not reported. */
    let reporting = true
    const startedHere = new Set<Promise<void>>()
    for (;;) {
      // Read afresh each time: a state reset or import rebuilds the queue (reload) while a job awaits the network.
      const heap = this.heapOf(merchantId)
      const entry = heap.peek()
      // What a job in flight does (a retry, an endpoint turned active) comes no sooner than networkEffectsAfterMs after
      // its time: a job due before that need not wait for it, as in real time it would not.
      const waitingFrom = Math.min(...[...inFlight.values()].map((job) => job.dueAt + (this.deps.networkEffectsAfterMs ?? 0)))
      if (entry === undefined || entry.dueAt > target) {
        // Nothing due now; jobs still waiting may schedule something that is (a retry).
        if (inFlight.size === 0 || !budgetLeft()) break
        await settle('all')
        continue
      }
      if (entry.dueAt > waitingFrom && budgetLeft()) {
        await settle('all')
        continue
      }
      if (inFlight.size >= MAX_IN_FLIGHT && this.awaitsNetwork(entry)) {
        if (budgetLeft()) {
          await settle('one')
          continue
        }
        // Every slot taken and the budget spent: this delivery waits for a slot to free, as in real time, while
        // the due actions that need no network (an expiry, a settlement run) go on at their times.
        heap.pop()
        this.waitFor(merchantId, entry)
        if (moveClock) ran.push(this.waitingReport(entry))
        continue
      }
      heap.pop()
      const derived = entry.kind === undefined ? undefined : this.derivedJob(merchantId, entry)
      const job = entry.kind === undefined ? this.deps.store.get('jobs', entry.id) : derived?.job
      if (!job) continue
      if (moveClock && job.dueAt > this.now(merchantId)) this.setOffset(merchantId, job.dueAt - this.deps.wall.now())
      if (!derived) this.deps.store.delete('jobs', job.id)
      const handler = this.handlers.get(job.kind)
      let result: ReturnType<JobHandler>
      try {
        // Pinned for the handler's synchronous part only: a handler that awaits
        // (a webhook delivery) must not freeze the clock for other requests.
        this.pinned.set(merchantId, job.dueAt)
        try {
          if (derived) result = derived.run()
          else result = handler ? handler(job) : { mode: null, description: `no handler for job kind ${job.kind}` }
        } finally {
          this.pinned.delete(merchantId)
        }
      } catch (error) {
        this.deps.onError(error, `job ${job.kind} ${job.id}`)
        continue
      }
      if (!isPromise(result)) {
        for (const report of [result ?? []].flat()) ran.push({ at: job.dueAt, kind: job.kind, ...report })
        continue
      }
      const settled: Promise<void> = result.then(
        (report) => {
          if (report && reporting) ran.push({ at: job.dueAt, kind: job.kind, ...report })
        },
        (error: unknown) => this.deps.onError(error, `job ${job.kind} ${job.id}`),
      )
      inFlight.set(settled, job)
      startedHere.add(settled)
      void settled.finally(() => {
        inFlight.delete(settled)
        this.requeueWaiting(merchantId)
        this.jobSettled()
      })
    }
    await settle('all')
    reporting = false
    for (const [settled, job] of inFlight) {
      if (!startedHere.has(settled)) continue
      // Jobs that wait on the network act on one object and record its mode (scheduleTargetedJob).
      const mode = job.payload.mode === 'test' || job.payload.mode === 'live' ? job.payload.mode : null
      ran.push({ at: job.dueAt, kind: job.kind, mode, description: `${job.kind} ${job.id} is still waiting for an answer; it finishes in the background` })
    }
    if (this.heaps.get(merchantId)?.size === 0) this.heaps.delete(merchantId)
    return { ran: ran.sort((a, b) => a.at - b.at), waitedMs: Math.round(waitedMs) }
  }

  /**
   * A job that waited on the network has finished, maybe after the run that
   * started it: what it recorded (the attempt, a retry) is written, and its
   * merchant's due jobs that waited for a free slot go on.
   */
  private jobSettled(): void {
    if (this.stopped) return
    // One write for the answers that come in together (the deliveries of one payment), not one each.
    this.settledCommit ??= setTimeout(() => {
      this.settledCommit = undefined
      this.deps.store.commit().catch((error: unknown) => this.deps.onError(error, 'writing what a finished job recorded'))
    }, SETTLED_COMMIT_MS)
    this.arm()
  }

  private kindOf(entry: HeapEntry): string | undefined {
    return entry.kind ?? this.deps.store.get('jobs', entry.id)?.kind
  }

  private awaitsNetwork(entry: HeapEntry): boolean {
    const kind = this.kindOf(entry)
    return kind !== undefined && this.networkKinds.has(kind)
  }

  /** What an advance says of a network job it left waiting for a slot, in that job's mode. */
  private waitingReport(entry: HeapEntry): ModeRanAction {
    const job = this.deps.store.get('jobs', entry.id)
    const mode = job?.payload.mode === 'test' || job?.payload.mode === 'live' ? job.payload.mode : null
    const kind = this.kindOf(entry)!
    return {
      at: entry.dueAt,
      kind,
      mode,
      description: `${kind} ${entry.id} waits for one of the ${MAX_IN_FLIGHT} attempts the merchant's receivers hold; it is made once one of them answers or times out`,
    }
  }

  private waitFor(merchantId: string, entry: HeapEntry): void {
    let waiting = this.waitingForSlot.get(merchantId)
    if (!waiting) {
      waiting = new MinHeap()
      this.waitingForSlot.set(merchantId, waiting)
    }
    waiting.push(entry)
  }

  /**
   * A slot has freed: as many of the merchant's network jobs put aside as
   * there are free slots go back to the queue, the earliest first. Not all of
   * them: queueing them all on every answer, only to put all but one aside
   * again, was work in proportion to the whole backlog for each answer.
   */
  private requeueWaiting(merchantId: string): void {
    const waiting = this.waitingForSlot.get(merchantId)
    if (!waiting) return
    const heap = this.heapOf(merchantId)
    for (let free = MAX_IN_FLIGHT - this.inFlightOf(merchantId).size; free > 0 && waiting.size > 0; free--) heap.push(waiting.pop()!)
    if (waiting.size === 0) this.waitingForSlot.delete(merchantId)
  }

  private inFlightOf(merchantId: string): Map<Promise<void>, JobRecord> {
    let jobs = this.inFlight.get(merchantId)
    if (!jobs) {
      jobs = new Map()
      this.inFlight.set(merchantId, jobs)
    }
    return jobs
  }

  /** Waits for all (or one) of the jobs in flight, but not past `deadline` (performance.now()), nor past `queued`. */
  private async settle(inFlight: Map<Promise<void>, JobRecord>, deadline: number, which: 'all' | 'one', queued: Promise<void>): Promise<void> {
    const left = deadline - performance.now()
    if (inFlight.size === 0 || left <= 0) return
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, left)
    })
    const jobs = [...inFlight.keys()]
    await Promise.race([which === 'all' ? Promise.all(jobs) : Promise.race(jobs), timeout, queued])
    clearTimeout(timer)
  }

  private withLock<T>(merchantId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(merchantId) ?? Promise.resolve()
    const next = previous.then(fn, fn)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    this.locks.set(merchantId, settled)
    void settled.then(() => {
      if (this.locks.get(merchantId) === settled) this.locks.delete(merchantId)
    })
    return next
  }

  /** Real time at which the earliest queued job of any merchant falls due (deliveries waiting for a slot are not queued: jobSettled). */
  private nextWakeAt(): number {
    let earliest = Infinity
    for (const [merchantId, heap] of this.heaps) {
      const dueAt = heap.earliestDueAt()
      if (dueAt !== Infinity) earliest = Math.min(earliest, dueAt - this.offset(merchantId))
    }
    return earliest
  }

  private arm(): void {
    if (this.stopped || this.running) return
    const wakeAt = this.nextWakeAt()
    if (wakeAt === Infinity) {
      clearTimeout(this.timer)
      this.timer = undefined
      this.timerAt = Infinity
      return
    }
    if (this.timer && wakeAt >= this.timerAt) return
    clearTimeout(this.timer)
    const delay = Math.min(Math.max(0, wakeAt - this.deps.wall.now()), MAX_TIMER_MS)
    this.timerAt = this.deps.wall.now() + delay
    this.timer = setTimeout(() => void this.tick(), delay)
    this.timer.unref()
  }

  /** Runs everything that real time has made due. */
  async tick(): Promise<void> {
    this.timer = undefined
    this.timerAt = Infinity
    this.running = true
    try {
      const due = [...this.heaps.keys()].filter((id) => (this.heaps.get(id)?.earliestDueAt() ?? Infinity) <= this.now(id))
      await Promise.all(due.map((id) => this.withLock(id, () => this.runDue(id, this.now(id), false))))
      await this.deps.store.commit()
      void this.sweep()
    } catch (error) {
      // A failed commit leaves the changes pending; the next tick or request writes them.
      this.deps.onError(error, 'scheduler tick')
    } finally {
      this.running = false
      this.arm()
    }
  }
}
