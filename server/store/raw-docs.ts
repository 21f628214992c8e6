import { close, closeSync, openSync, readSync } from 'node:fs'
import type { Doc } from './types.js'

/**
 * Where the documents of lazy collections are on disk: the state keeps such
 * a document as a number, an entry here, instead of in memory
 * (docs/storage.md, "Lazy collections"). An entry names a file (an origin:
 * the snapshot it was written to or read from, or the journal whose line
 * holds it), an offset and a length. Origins stay open, so an entry is
 * readable even after a compaction renamed another file over its name;
 * a compaction points the entries at the new snapshot, or at the new
 * journal, and the old file is let go once nothing points at it.
 *
 * Entries are reused: one whose document was replaced or deleted is
 * released, and becomes free for a new document only at settle(), once no
 * snapshot being rendered can still read it.
 */
export class RawDocs {
  private readonly fds = new Map<number, { fd: number; file: string }>()
  private nextOrigin = 0
  private readonly offsets: number[] = []
  private readonly lengths: number[] = []
  private readonly origins: number[] = []
  private readonly free: number[] = []
  private released: number[] = []
  /** Closes of the origins settle() let go, still under way; each leaves the set when done. */
  private readonly lettingGo = new Set<Promise<void>>()
  /** Where the last read() ended: a read that starts shortly after it is a walk through the file. */
  private lastRead = { origin: -1, end: -1 }
  /** Bytes read ahead for a walk; dropped whenever an entry is added or moved, so never older than an entry. */
  private ahead: { origin: number; start: number; bytes: Buffer } | null = null

  constructor(private readonly closeInBackground: (fd: number) => Promise<void> = closeInThreadPool) {}

  /** Opens `file` for reading as a new origin; answers its id. */
  openOrigin(file: string, fd = openSync(file, 'r')): number {
    const origin = this.nextOrigin++
    this.fds.set(origin, { fd, file })
    return origin
  }

  /** A new entry: `length` bytes at `offset` of `origin`. */
  add(origin: number, offset: number, length: number): number {
    const index = this.free.pop() ?? this.offsets.length
    this.point(index, origin, offset, length)
    return index
  }

  /** Moves an entry: the same document, now found there. */
  point(index: number, origin: number, offset: number, length: number): void {
    // Read ahead before this entry's bytes were written (a journal line over its extent's zeros), or elsewhere.
    this.ahead = null
    this.offsets[index] = offset
    this.lengths[index] = length
    this.origins[index] = origin
  }

  /** The document of this entry was replaced or deleted: the entry is free from the next settle() on. */
  release(index: number): void {
    this.released.push(index)
  }

  /** Whether the entry lies in `origin` before byte `offset`. */
  before(index: number, origin: number, offset: number): boolean {
    return this.origins[index] === origin && this.offsets[index]! < offset
  }

  /** Entries in `from` at or after `prefix` move to `to`, `prefix` bytes earlier (a journal that lost its first `prefix` bytes). */
  rebase(from: number, to: number, prefix: number): void {
    for (let index = 0; index < this.origins.length; index++) {
      if (this.origins[index] === from && this.offsets[index]! >= prefix) this.point(index, to, this.offsets[index]! - prefix, this.lengths[index]!)
    }
  }

  /**
   * After a snapshot was written and every entry still needed points at
   * `keep` origins: released entries become free, and other origins close.
   */
  settle(keep: readonly number[]): void {
    this.ahead = null
    this.free.push(...this.released)
    this.released = []
    for (const [origin, { fd }] of this.fds) {
      if (keep.includes(origin)) continue
      // In the thread pool, not on the event loop: an origin let go is a file a compaction replaced, and closing its
      // last descriptor frees its blocks, which held the event loop 99 ms in a compaction at 100,000 sessions (every
      // request waited).
      const closing = this.closeInBackground(fd).then(() => {
        this.lettingGo.delete(closing)
      })
      this.lettingGo.add(closing)
      this.fds.delete(origin)
    }
  }

  /** Resolves once the descriptors settle() let go are closed (tests, and the store's close). */
  async closed(): Promise<void> {
    while (this.lettingGo.size > 0) await Promise.all(this.lettingGo)
  }

  /** The document of an entry, parsed. */
  read(index: number, id: string): Doc {
    return this.parse(this.bytesOf(index), id)
  }

  /**
   * An entry's bytes. A read that starts shortly after the last one ended is
   * a walk through the file (an export, a merchant's state replaced by an
   * import, both in file order): it reads AHEAD_BYTES, and the next
   * documents come from there. A read by id (a GET, a list's page, newest
   * first) reads just its document. Replacing a merchant's 27,000 sessions
   * by an import made 81,078 reads, one per document read, and now 1,003;
   * the import took 0.92–1.01 s against 1.00–1.03 s (docs/performance.md).
   */
  private bytesOf(index: number): Buffer {
    const origin = this.origins[index]!
    const offset = this.offsets[index]!
    const length = this.lengths[index]!
    const walking = origin === this.lastRead.origin && offset >= this.lastRead.end && offset - this.lastRead.end <= WALK_GAP_BYTES
    this.lastRead = { origin, end: offset + length }
    const ahead = this.ahead
    if (ahead && ahead.origin === origin && offset >= ahead.start && offset + length <= ahead.start + ahead.bytes.length) {
      return ahead.bytes.subarray(offset - ahead.start, offset - ahead.start + length)
    }
    const { fd, file } = this.originOf(index)
    if (!walking) return readAt(fd, file, offset, length, length)
    const bytes = readAt(fd, file, offset, Math.max(length, AHEAD_BYTES), length)
    this.ahead = { origin, start: offset, bytes }
    return bytes.subarray(0, length)
  }

  /** The document `id` from its bytes; anything else means the file changed under the store. */
  parse(bytes: Buffer, id: string): Doc {
    let doc: unknown
    try {
      doc = JSON.parse(bytes.toString('utf8'))
    } catch {
      doc = undefined
    }
    if (typeof doc !== 'object' || doc === null || (doc as Doc).id !== id) {
      throw new Error(`A data file changed while bula had it open: document "${id}" is no longer where it was written.`)
    }
    return doc as Doc
  }

  /**
   * A reader for many entries in file order: one read per MiB instead of one
   * per document. The bytes it answers are valid until its next call: every
   * window is read into one buffer, not a new MiB each (a compaction reads
   * the whole file).
   */
  reader(): (index: number) => Buffer {
    return windowReader({ origins: this.origins, offsets: this.offsets, lengths: this.lengths }, (index) => this.originOf(index))
  }

  /**
   * Every entry, and the origins' descriptors, for a reader in another
   * thread (readerOf). Taken with a frozen state: the entries it refers to
   * stay as they are until settle(), which comes only after its snapshot.
   */
  table(): RawTable {
    return {
      files: [...this.fds].map(([origin, { fd, file }]) => [origin, fd, file]),
      offsets: Float64Array.from(this.offsets),
      lengths: Float64Array.from(this.lengths),
      origins: Float64Array.from(this.origins),
    }
  }

  /** A reader (as reader()) of the entries of another thread's table(); the descriptors stay that thread's to close. */
  static readerOf(table: RawTable): (index: number) => Buffer {
    const files = new Map(table.files.map(([origin, fd, file]) => [origin, { fd, file }]))
    return windowReader(table, (index) => {
      const origin = files.get(table.origins[index]!)
      if (!origin) throw new Error(`entry ${index} names an origin the table lacks`)
      return origin
    })
  }

  close(): void {
    this.ahead = null
    for (const { fd } of this.fds.values()) closeSync(fd)
    this.fds.clear()
  }

  private originOf(index: number): { fd: number; file: string } {
    const origin = this.fds.get(this.origins[index]!)
    if (!origin) throw new Error('The store is closed.')
    return origin
  }
}

/** RawDocs.table(): what a thread without the store needs to read its entries. */
export interface RawTable {
  /** Each origin, its descriptor (process-wide, so valid in any thread) and its file's name for messages. */
  files: [origin: number, fd: number, file: string][]
  offsets: Float64Array<ArrayBuffer>
  lengths: Float64Array<ArrayBuffer>
  origins: Float64Array<ArrayBuffer>
}

/**
 * Reads entries in file order from one window of WINDOW_BYTES, read into
 * one buffer, reused (RawDocs.reader); `entries` are a RawDocs' own arrays
 * or another thread's copy of them.
 */
function windowReader(
  entries: { readonly origins: ArrayLike<number>; readonly offsets: ArrayLike<number>; readonly lengths: ArrayLike<number> },
  originOf: (index: number) => { fd: number; file: string },
): (index: number) => Buffer {
  const { origins, offsets, lengths } = entries
  let buffer = Buffer.allocUnsafe(WINDOW_BYTES)
  let window: Buffer = buffer.subarray(0, 0)
  let windowStart = 0
  let windowOrigin = -1
  return (index) => {
    const origin = origins[index]!
    const offset = offsets[index]!
    const length = lengths[index]!
    if (origin !== windowOrigin || offset < windowStart || offset + length > windowStart + window.length) {
      const { fd, file } = originOf(index)
      if (buffer.length < length) buffer = Buffer.allocUnsafe(length)
      window = readAt(fd, file, offset, Math.max(length, WINDOW_BYTES), length, buffer)
      windowStart = offset
      windowOrigin = origin
    }
    return window.subarray(offset - windowStart, offset - windowStart + length)
  }
}

const WINDOW_BYTES = 1 << 20
/** How far past the last read a walk's next document may start: the other documents of a journal line, or of a snapshot line's neighbours. */
const WALK_GAP_BYTES = 16 * 1024
/**
 * What a walk reads ahead: a hundred or so documents a read. Small, since
 * reads by id that happen to follow file order (a client fetching sessions
 * in the order it made them) also count as a walk, and a commit between two
 * of them drops the window.
 */
const AHEAD_BYTES = 64 * 1024

/** fs.close, which runs in libuv's thread pool; a read-only descriptor that fails to close holds nothing to lose. */
const closeInThreadPool = (fd: number): Promise<void> => new Promise((resolve) => close(fd, () => resolve()))

/** Up to `length` bytes from `offset` (into `buffer`, which has room for them): fewer only at the end of the file, never fewer than `needed`. */
function readAt(fd: number, file: string, offset: number, length: number, needed: number, buffer = Buffer.allocUnsafe(length)): Buffer {
  let filled = 0
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, offset + filled)
    if (read === 0) break
    filled += read
  }
  if (filled < needed) throw new Error(`${file} changed while bula had it open: it is shorter than when it was written.`)
  return buffer.subarray(0, filled)
}
