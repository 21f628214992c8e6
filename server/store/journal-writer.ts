import { messageOf } from './error-info.js'
import type { FileLock } from './file-lock.js'
import type { Placement } from './document-state.js'
import { journalText, LINE_HEAD, type JournalFile } from './journal-file.js'
import type { JournalCoverage, SnapshotSource } from './snapshot-render.js'
import { StoreWriteError } from './types.js'

export interface JournalWriterOptions {
  journal: JournalFile
  /**
   * The current state as a snapshot to render, containing the journal as
   * `journal` describes it; taken synchronously, so it is one point in time.
   * `inBackground` for a compaction: rendered without holding up requests.
   */
  freeze: (journal: JournalCoverage, inBackground: boolean) => SnapshotSource
  /** Renders and replaces the snapshot file atomically and durably. */
  writeSnapshot: (renderer: SnapshotSource) => Promise<void>
  /** A line is on disk: where in the journal the documents recorded with a placement are. */
  placed: (placements: Placement[]) => void
  /** The journal now holds only what followed its first `prefix` bytes (a compaction swapped it). */
  journalSwapped: (prefix: number) => void
  snapshotFile: string
  /** The journal size that triggers compaction, given the size of the last snapshot. */
  thresholdBytes: (snapshotBytes: number) => number
  /** The size of the snapshot on disk when the store opened. */
  snapshotBytes: number
  warn: (message: string) => void
  lock: FileLock
}

interface Batch {
  readonly done: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

/** A compaction running beside the journal writes. */
interface Compaction {
  readonly renderer: SnapshotSource
  readonly done: Promise<void>
}

/**
 * Group commit. Changes accumulate as serialized ops; one write at a time
 * takes everything pending as one journal line, and every commit() whose
 * changes were in it resolves when it is on disk. Past the threshold, a
 * write also freezes the state and a compaction starts beside the writes:
 * the snapshot is rendered and written a chunk at a time while lines go on
 * being appended, then the journal is replaced by the part the snapshot
 * does not hold (docs/storage.md, "Compaction").
 */
export class JournalWriter {
  private pending: string[] = []
  /** Documents of lazy collections among `pending`, by op index, to place once their line is on disk. */
  private toPlace: PendingPlacement[] = []
  /** The commits waiting for the ops in `pending`, which the next write takes. */
  private next: Batch | null = null
  /** The commits waiting for the write on its way to the disk. */
  private inFlight: Batch | null = null
  private draining = false
  private drained: Promise<void> = Promise.resolve()
  /** The journal write on its way to the disk (a write never throws: failures reject its batch). */
  private writing: Promise<void> | null = null
  /** Set while a compaction swaps the journal: writes wait for it. */
  private held: Promise<void> | null = null
  private compaction: Compaction | null = null
  private closing = false
  /** After a failed compaction the journal grows another threshold before the next try, rather than retrying on every commit. */
  private compactAt = 0
  /** Of the last snapshot written, in bytes: the default threshold follows it. */
  private snapshotBytes: number

  constructor(private readonly options: JournalWriterOptions) {
    this.snapshotBytes = options.snapshotBytes
  }

  /** An op to write; `placement` names the document a lazy collection wants to read from the journal once it is there. */
  record(op: string, placement?: Omit<PendingPlacement, 'op'>): void {
    if (placement) this.toPlace.push({ ...placement, op: this.pending.length })
    this.pending.push(op)
  }

  commit(): Promise<void> {
    if (this.pending.length === 0) return this.inFlight?.done ?? Promise.resolve()
    this.next ??= newBatch()
    const { done } = this.next
    if (!this.draining) this.drained = this.drain()
    return done
  }

  /** Resolves once no compaction is running (tests and tools; commits never wait for one). */
  async compacted(): Promise<void> {
    while (this.compaction) await this.compaction.done
  }

  /**
   * Writes what is pending, then a final snapshot, and lets go of the files.
   * A compaction still running is cut short (the final snapshot replaces
   * it). Rejects (and keeps everything open) only when the pending changes
   * cannot be written; past that point the journal holds every change, so a
   * failed snapshot is only a warning.
   */
  async close(): Promise<void> {
    await Promise.all([this.commit(), this.drained])
    this.closing = true
    this.compaction?.renderer.abort('the store is closing')
    await this.compacted()
    const { journal, lock, warn } = this.options
    try {
      if (journal.size > 0) {
        await this.writeSnapshot(this.options.freeze(journal.coverage(), false))
        await journal.clear()
      }
    } catch (error) {
      warn(`Could not write the final snapshot ${this.options.snapshotFile} (${messageOf(error)}); ${journal.path} keeps every change.`)
    }
    try {
      await journal.close()
    } catch (error) {
      warn(`Could not close ${journal.path}: ${messageOf(error)}`)
    }
    await lock.release()
  }

  private async drain(): Promise<void> {
    this.draining = true
    try {
      for (let batch = this.next; batch; batch = this.next) {
        // Once the requests read in this turn of the event loop have made their changes: one write takes all of them
        // (at 10 connections, twice as many per write as starting at the first commit).
        await new Promise((resolve) => setImmediate(resolve))
        while (this.held) await this.held
        // Taken only now: commits made meanwhile join this write.
        this.next = null
        const writing = this.write(batch)
        this.writing = writing
        try {
          await writing
        } finally {
          this.writing = null
        }
      }
    } finally {
      this.draining = false
    }
  }

  /** Runs `task` once the journal write in flight (if any) is done, and holds the next writes until it is over. */
  private async exclusive(task: () => Promise<void>): Promise<void> {
    let release!: () => void
    this.held = new Promise((resolve) => (release = resolve))
    try {
      while (this.writing) await this.writing
      await task()
    } finally {
      this.held = null
      release()
    }
  }

  private async write(batch: Batch): Promise<void> {
    const { journal } = this.options
    const ops = this.pending
    const toPlace = this.toPlace
    this.pending = []
    this.toPlace = []
    const text = journalText(ops)
    const line = Buffer.from(text)
    const grownSize = journal.size + line.length
    const thresholdBytes = this.options.thresholdBytes(this.snapshotBytes)
    // Frozen now, while memory holds exactly the journal plus this line, and
    // rendered only once the line is durable: the snapshot never contains a
    // change the journal lacks, and its coverage names exactly that journal.
    const compact = this.compaction === null && !this.closing && grownSize > thresholdBytes && grownSize >= this.compactAt
    const covered = compact ? journal.coverage(line) : null
    const renderer = covered ? this.options.freeze(covered, true) : null
    this.inFlight = batch
    const start = journal.size
    try {
      await journal.append(line)
    } catch (error) {
      // Back in front of what came since: the next commit writes them again, in order.
      this.pending = ops.concat(this.pending)
      this.toPlace = toPlace.concat(this.toPlace.map((placement) => ({ ...placement, op: placement.op + ops.length })))
      const reason = `Could not write ${journal.path} (${messageOf(error)}); the changes are not durable, and the next commit tries again.`
      // Logged once here, however many requests the refused write carried.
      this.options.warn(`storage error: ${reason}`)
      batch.reject(new StoreWriteError(reason, { cause: error }))
      return
    } finally {
      this.inFlight = null
    }
    if (toPlace.length > 0) this.options.placed(placements(text, line, ops, toPlace, start))
    batch.resolve()
    if (renderer && covered) this.compaction = { renderer, done: this.compact(renderer, covered) }
  }

  /** In the background: the snapshot, then the journal without the part it holds. Commits go on meanwhile. */
  private async compact(renderer: SnapshotSource, covered: JournalCoverage): Promise<void> {
    try {
      await this.writeSnapshot(renderer)
      await this.options.journal.dropPrefix(covered.bytes, (task) => this.exclusive(task), () => this.options.journalSwapped(covered.bytes))
    } catch (error) {
      if (!this.closing) this.compactionFailed(error)
    } finally {
      this.compaction = null
    }
  }

  private async writeSnapshot(renderer: SnapshotSource): Promise<void> {
    await this.options.writeSnapshot(renderer)
    this.snapshotBytes = renderer.bytes
  }

  private compactionFailed(error: unknown): void {
    const { journal, snapshotFile, warn } = this.options
    const thresholdBytes = this.options.thresholdBytes(this.snapshotBytes)
    this.compactAt = journal.size + thresholdBytes
    warn(`Could not compact ${snapshotFile} (${messageOf(error)}); ${journal.path} keeps every change, and compaction is tried again after another ${thresholdBytes} bytes.`)
  }
}

interface PendingPlacement {
  collection: string
  id: string
  json: string
  /** Index of its op in the batch. */
  op: number
}

/**
 * Where in the journal each document ends up, from the line's text: a put
 * op ends with the document's JSON and `]`. The line starting at byte
 * `start` of the journal; characters are bytes in ASCII text.
 */
function placements(text: string, line: Buffer, ops: readonly string[], toPlace: readonly PendingPlacement[], start: number): Placement[] {
  const ascii = line.length === text.length
  const bytes = (from: number, to: number): number => (ascii ? to - from : Buffer.byteLength(text.slice(from, to)))
  const placed: Placement[] = []
  let op = 0
  let opChar = LINE_HEAD.length
  let opByte = LINE_HEAD.length
  for (const { collection, id, json, op: index } of toPlace) {
    for (; op < index; op++) {
      const next = opChar + ops[op]!.length + 1
      opByte += bytes(opChar, next)
      opChar = next
    }
    const jsonChar = opChar + ops[index]!.length - 1 - json.length
    placed.push({ collection, id, json, offset: start + opByte + bytes(opChar, jsonChar), length: bytes(jsonChar, jsonChar + json.length) })
  }
  return placed
}

function newBatch(): Batch {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve
    reject = onReject
  })
  return { done, resolve, reject }
}
