import type { JournalCoverage, SnapshotText } from './document-state.js'
import { messageOf } from './error-info.js'
import type { FileLock } from './file-lock.js'
import { journalLine, type JournalFile } from './journal-file.js'
import { StoreWriteError } from './types.js'

export interface JournalWriterOptions {
  journal: JournalFile
  /** The current state as snapshot text, containing the journal as `journal` describes it; synchronous, so it is one point in time. */
  render: (journal: JournalCoverage) => SnapshotText
  /** Replaces the snapshot file atomically and durably. */
  writeSnapshot: (text: SnapshotText) => Promise<void>
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

/**
 * Group commit. Changes accumulate as serialized ops; one write at a time
 * takes everything pending as one journal line, and every commit() whose
 * changes were in it resolves when it is on disk. The same serialized
 * writer compacts: past the threshold it writes a snapshot and empties the
 * journal.
 */
export class JournalWriter {
  private pending: string[] = []
  /** The commits waiting for the ops in `pending`, which the next write takes. */
  private next: Batch | null = null
  /** The commits waiting for the write on its way to the disk. */
  private inFlight: Batch | null = null
  private draining = false
  private drained: Promise<void> = Promise.resolve()
  /** After a failed compaction the journal grows another threshold before the next try, rather than retrying on every commit. */
  private compactAt = 0
  /** Of the last snapshot written, in bytes: the default threshold follows it. */
  private snapshotBytes: number

  constructor(private readonly options: JournalWriterOptions) {
    this.snapshotBytes = options.snapshotBytes
  }

  record(op: string): void {
    this.pending.push(op)
  }

  commit(): Promise<void> {
    if (this.pending.length === 0) return this.inFlight?.done ?? Promise.resolve()
    this.next ??= newBatch()
    const { done } = this.next
    if (!this.draining) this.drained = this.drain()
    return done
  }

  /**
   * Writes what is pending, then a final snapshot, and lets go of the files.
   * Rejects (and keeps everything open) only when the pending changes
   * cannot be written; past that point the journal holds every change, so
   * a failed snapshot is only a warning.
   */
  async close(): Promise<void> {
    await Promise.all([this.commit(), this.drained])
    const { journal, lock, warn } = this.options
    try {
      if (journal.size > 0) {
        await this.writeSnapshot(this.options.render(journal.coverage()))
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
        this.next = null
        await this.write(batch)
      }
    } finally {
      this.draining = false
    }
  }

  private async write(batch: Batch): Promise<void> {
    const { journal } = this.options
    const ops = this.pending
    this.pending = []
    const line = journalLine(ops)
    const grownSize = journal.size + line.length
    const thresholdBytes = this.options.thresholdBytes(this.snapshotBytes)
    // Rendered now, while memory holds exactly the journal plus this line, and
    // written only once the line is durable: the snapshot never contains a
    // change the journal lacks, and its coverage names exactly that journal.
    const snapshot = grownSize > thresholdBytes && grownSize >= this.compactAt ? this.renderSnapshot(line) : null
    this.inFlight = batch
    try {
      await journal.append(line)
    } catch (error) {
      // Back in front of what came since: the next commit writes them again, in order.
      this.pending = ops.concat(this.pending)
      const reason = `Could not write ${journal.path} (${messageOf(error)}); the changes are not durable, and the next commit tries again.`
      // Logged once here, however many requests the refused write carried.
      this.options.warn(`storage error: ${reason}`)
      batch.reject(new StoreWriteError(reason, { cause: error }))
      return
    } finally {
      this.inFlight = null
    }
    batch.resolve()
    if (snapshot !== null) await this.compact(snapshot)
  }

  private renderSnapshot(line: Buffer): SnapshotText | null {
    try {
      return this.options.render(this.options.journal.coverage(line))
    } catch (error) {
      // A stored object changed in place into something JSON cannot hold; the journal still has what was put.
      this.compactionFailed(error)
      return null
    }
  }

  private async compact(snapshot: SnapshotText): Promise<void> {
    try {
      await this.writeSnapshot(snapshot)
      await this.options.journal.clear()
    } catch (error) {
      this.compactionFailed(error)
    }
  }

  private async writeSnapshot(text: SnapshotText): Promise<void> {
    await this.options.writeSnapshot(text)
    this.snapshotBytes = text.bytes
  }

  private compactionFailed(error: unknown): void {
    const { journal, snapshotFile, warn } = this.options
    const thresholdBytes = this.options.thresholdBytes(this.snapshotBytes)
    this.compactAt = journal.size + thresholdBytes
    warn(`Could not compact ${snapshotFile} (${messageOf(error)}); ${journal.path} keeps every change, and compaction is tried again after another ${thresholdBytes} bytes.`)
  }
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
