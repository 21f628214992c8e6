import { invalidRequest } from '../../src/errors.js'
import { MAX_ADVANCE_MS, type AdvanceClockRequest, type AdvanceClockResponse, type RanAction } from '../../src/schemas/clock.js'
import { newId } from '../ids.js'
import type { Collections } from '../store/collections.js'
import type { Store } from '../store/types.js'
import type { JobRecord } from './job.js'
import { MinHeap } from './min-heap.js'
import type { WallClock } from './wall-clock.js'

/** What a job did, in a sentence for `clock advance` output; nothing when it had nothing to do. */
export type JobHandler = (job: JobRecord) => string | void | Promise<string | void>

/** Longest wait between two looks at the queue, so a change of the system clock is noticed. */
const MAX_TIMER_MS = 60_000

/**
 * The merchants' clocks (real time plus a per-merchant offset) and the
 * scheduler of due actions on them. Actions run in time order, both as real
 * time passes and when a merchant's clock is advanced; while an action runs,
 * the merchant's clock reads exactly its due time, so what it records
 * (an expiry, a Payout's createdAt) carries that time.
 */
export class ClockService {
  private readonly heaps = new Map<string, MinHeap>()
  private readonly handlers = new Map<string, JobHandler>()
  private readonly locks = new Map<string, Promise<unknown>>()
  /** While a job runs, its merchant's clock reads the job's due time exactly. */
  private readonly pinned = new Map<string, number>()
  private seq = 0
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
    },
  ) {
    this.reload()
  }

  /** Rebuilds the queue from the store's jobs, after the store was changed behind the scheduler (a state import). */
  reload(): void {
    this.heaps.clear()
    for (const job of this.deps.store.values('jobs')) this.enqueue(job)
    this.arm()
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler)
  }

  /** The merchant's current time; real time for an unknown merchant. */
  now(merchantId: string): number {
    const pinned = this.pinned.get(merchantId)
    if (pinned !== undefined) return pinned
    const merchant = this.deps.store.get('merchants', merchantId)
    return this.deps.wall.now() + (merchant?.clockOffsetMs ?? 0)
  }

  /** Real time in Unix seconds, for what must not follow the merchant's clock (webhook signature timestamps, contract §5). */
  /** Real time, for what must not move with a merchant's clock (dashboard sign-ins). */
  wallNow(): number {
    return this.deps.wall.now()
  }

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

  async advance(merchantId: string, request: AdvanceClockRequest): Promise<AdvanceClockResponse> {
    return this.withLock(merchantId, async () => {
      const start = this.now(merchantId)
      const target = request.to ?? start + (request.ms ?? 0)
      if (target < start) throw invalidRequest(`The clock never goes back: \`to\` is before now (${start}).`, 'to')
      if (target - start > MAX_ADVANCE_MS) {
        throw invalidRequest(`One advance moves the clock at most ${MAX_ADVANCE_MS} ms (400 days).`, 'to')
      }
      const originalOffset = this.offset(merchantId)
      const ran = await this.runDue(merchantId, target, true)
      // `ms` moves the offset by exactly that much; `to` makes the clock read exactly
      // `to` now. Either way it ends at or past the target and never goes back.
      const wanted = request.to === undefined ? originalOffset + (target - start) : target - this.deps.wall.now()
      this.setOffset(merchantId, Math.max(this.offset(merchantId), wanted))
      // Read before the disk write, so the answer shows the time the advance reached.
      const reached = { now: this.now(merchantId), offsetMs: this.offset(merchantId), ran }
      await this.deps.store.commit()
      this.arm()
      return reached
    })
  }

  start(): void {
    this.stopped = false
    this.arm()
  }

  /** Stops the timer and waits for actions already running. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
    await Promise.allSettled([...this.locks.values()])
  }

  private enqueue(job: JobRecord): void {
    let heap = this.heaps.get(job.merchantId)
    if (!heap) {
      heap = new MinHeap()
      this.heaps.set(job.merchantId, heap)
    }
    heap.push({ dueAt: job.dueAt, seq: this.seq++, id: job.id })
  }

  private setOffset(merchantId: string, clockOffsetMs: number): void {
    const merchant = this.deps.store.get('merchants', merchantId)
    if (merchant && merchant.clockOffsetMs !== clockOffsetMs) this.deps.store.put('merchants', { ...merchant, clockOffsetMs })
  }

  /** Runs the merchant's jobs due at or before `target` in time order, including jobs they schedule. */
  private async runDue(merchantId: string, target: number, moveClock: boolean): Promise<RanAction[]> {
    const ran: RanAction[] = []
    const heap = this.heaps.get(merchantId)
    if (!heap) return ran
    for (let entry = heap.peek(); entry && entry.dueAt <= target; entry = heap.peek()) {
      heap.pop()
      const job = this.deps.store.get('jobs', entry.id)
      if (!job) continue
      if (moveClock && job.dueAt > this.now(merchantId)) this.setOffset(merchantId, job.dueAt - this.deps.wall.now())
      this.deps.store.delete('jobs', job.id)
      const handler = this.handlers.get(job.kind)
      try {
        // Pinned for the handler's synchronous part only: a handler that awaits
        // (a webhook delivery) must not freeze the clock for other requests.
        this.pinned.set(merchantId, job.dueAt)
        let result: ReturnType<JobHandler>
        try {
          result = handler ? handler(job) : `no handler for job kind ${job.kind}`
        } finally {
          this.pinned.delete(merchantId)
        }
        const description = await result
        if (description) ran.push({ at: job.dueAt, kind: job.kind, description })
      } catch (error) {
        this.deps.onError(error, `job ${job.kind} ${job.id}`)
      }
    }
    if (heap.size === 0) this.heaps.delete(merchantId)
    return ran
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

  /** Real time at which the earliest job of any merchant falls due. */
  private nextWakeAt(): number {
    let earliest = Infinity
    for (const [merchantId, heap] of this.heaps) {
      const entry = heap.peek()
      if (entry) earliest = Math.min(earliest, entry.dueAt - this.offset(merchantId))
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
      const due = [...this.heaps.keys()].filter((id) => (this.heaps.get(id)?.peek()?.dueAt ?? Infinity) <= this.now(id))
      await Promise.all(due.map((id) => this.withLock(id, () => this.runDue(id, this.now(id), false))))
      await this.deps.store.commit()
    } catch (error) {
      // A failed commit leaves the changes pending; the next tick or request writes them.
      this.deps.onError(error, 'scheduler tick')
    } finally {
      this.running = false
      this.arm()
    }
  }
}
