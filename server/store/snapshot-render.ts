import { fdatasyncSync, writeSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { crc32 } from 'node:zlib'
import type { Doc } from './types.js'

/** The first lines of every snapshot this code writes (docs/storage.md, "Snapshot"); start-up reads such files line by line. */
export const SNAPSHOT_HEAD = '{\n  "format": "bula-data",\n  "version": 1,\n  "collections": {\n'
/** How a document line starts: inside its collection, one document per line. */
export const DOCUMENT_INDENT = '      '
/** How the last member of a snapshot starts: `check`, the length and CRC-32 of every byte before this line. */
export const CHECK_LINE_START = '  "check": '

/**
 * The first `bytes` bytes of the journal, when their SHA-256 is `sha256`, are
 * contained in the snapshot that carries this: start-up skips them instead
 * of replaying them over a newer state (a crash between a snapshot and the
 * journal's truncation).
 */
export interface JournalCoverage {
  bytes: number
  sha256: string
}

/**
 * A document as a lazy collection holds it: its JSON text (as journalled),
 * or the index of its text in the origin file (RawDocs), or, read from a
 * file edited by hand, parsed.
 */
export type LazyValue = string | number | Doc

/** One collection at the moment of a snapshot: its documents and its group order. */
export interface FrozenCollection {
  name: string
  /** Document ids, in map order; only lazy collections need them (a parsed document carries its own). */
  ids: string[] | null
  values: LazyValue[]
  groups: [index: string, keys: [key: string, ids: string[]][]][]
}

/**
 * A frozen state's snapshot text, to write to a file: rendered in this
 * thread (SnapshotRenderer) or in a thread of its own (BackgroundSnapshot,
 * for compactions while requests are served).
 */
export interface SnapshotSource {
  /** The state as frozen: DocumentState.adopt reads which documents lazySpans are of from it. */
  readonly collections: readonly FrozenCollection[]
  /** The part of the journal this state contains. */
  readonly journal: JournalCoverage
  /** Where each document of a lazy collection is in the text, in rendering order; complete once writeTo resolved. */
  readonly lazySpans: { offsets: ArrayLike<number>; lengths: ArrayLike<number> }
  /** The text's length so far; the whole length once writeTo resolved. */
  readonly bytes: number
  /** Writes the whole text at the start of `handle`'s file, synced every SYNC_EVERY_BYTES (the caller syncs the rest). */
  writeTo(handle: FileHandle): Promise<void>
  /** Stops the rendering: writeTo then fails with `reason` (a compaction cut short by close). */
  abort(reason: string): void
}

/**
 * A snapshot being written is synced every this many bytes, not only at the
 * end: the system otherwise holds all of it (250 MB at 100,000 sessions)
 * until the last fdatasync, and the journal's synced writes, so every
 * commit, waited behind that flush for a second or more.
 */
export const SYNC_EVERY_BYTES = 8 * 1024 * 1024

/** About this many bytes per chunk handed to the file: a chunk takes a few milliseconds to render, so requests are served between chunks. */
const CHUNK_BYTES = 512 * 1024
/** Text up to this long is written byte by byte when it is ASCII: cheaper than a call into Node for an id or a comma. */
const SHORT_TEXT = 128
/** Group ids per piece of text, so a group of 300,000 ids is not one long JSON.stringify. */
const IDS_PER_PIECE = 10_000

/**
 * The snapshot text of a frozen state, rendered a chunk at a time as UTF-8
 * (docs/storage.md, "Snapshot"). Documents are immutable by the store's
 * contract, so arrays of the documents taken at one instant are that
 * instant's state however long the rendering takes. The CRC-32 of the text
 * is kept as it goes and written last, in `check`.
 */
export class SnapshotRenderer implements SnapshotSource {
  private readonly pieces: Generator<string | LazyDocuments, void>
  /** The lazy collection whose documents are being rendered, and the next of them. */
  private documents: (LazyDocuments & { next: number }) | null = null
  private crc = 0
  private emitted = 0
  private done = false
  private aborted: string | null = null
  /** The chunk being rendered: one buffer, reused. */
  private out = Buffer.allocUnsafe(2 * CHUNK_BYTES)
  /**
   * Where each document of a lazy collection is in this text, in rendering
   * order (collection by collection, in map order): DocumentState.adopt
   * makes them the documents' new places once the file is in place.
   */
  readonly lazySpans: { offsets: number[]; lengths: number[] } = { offsets: [], lengths: [] }

  constructor(
    /** The state as frozen: DocumentState.adopt reads which documents lazySpans are of from it. */
    readonly collections: readonly FrozenCollection[],
    /** The part of the journal this state contains. */
    readonly journal: JournalCoverage,
    /** Reads the bytes of a document a lazy collection keeps on disk (RawDocs.reader). */
    private readonly readRaw: (index: number) => Buffer,
  ) {
    this.pieces = renderPieces(collections, journal)
  }

  /** Total bytes handed out so far; the whole length once next() answered null. */
  get bytes(): number {
    return this.emitted
  }

  /** Stops the rendering: the next call to next() throws with `reason` (a compaction cut short by close). */
  abort(reason: string): void {
    this.aborted = reason
  }

  /** The chunks, each written before the next is rendered, so requests are served in between. */
  async writeTo(handle: FileHandle): Promise<void> {
    let unsynced = 0
    for (let chunk = this.next(); chunk !== null; chunk = this.next()) {
      await writeAll(handle, chunk)
      unsynced += chunk.length
      if (unsynced < SYNC_EVERY_BYTES) continue
      await handle.datasync()
      unsynced = 0
    }
  }

  /** The same, synchronously: the render thread's, where no request waits. */
  writeToSync(fd: number): void {
    let unsynced = 0
    for (let chunk = this.next(); chunk !== null; chunk = this.next()) {
      for (let written = 0; written < chunk.length; ) written += writeSync(fd, chunk, written, chunk.length - written)
      unsynced += chunk.length
      if (unsynced < SYNC_EVERY_BYTES) continue
      fdatasyncSync(fd)
      unsynced = 0
    }
  }

  /**
   * The next chunk of the text, or null when all of it was handed out. The
   * chunk is a view of one buffer the renderer reuses: it is valid until the
   * next call (DurableTextFile writes each before asking for the next).
   * Documents left in the origin file are copied as bytes.
   */
  next(): Buffer | null {
    if (this.aborted !== null) throw new Error(this.aborted)
    if (this.done) return null
    let used = 0
    while (used < CHUNK_BYTES) {
      if (this.documents) {
        used = this.writeDocuments(this.documents, used)
        continue
      }
      const step = this.pieces.next()
      if (step.done) {
        this.done = true
        break
      }
      const piece = step.value
      if (typeof piece === 'string') used = this.write(piece, used)
      else this.documents = { ...piece, next: 0 }
    }
    if (this.done) {
      // Everything before the check line is in this chunk now: close it with the check over all of it.
      const crc = crc32(this.out.subarray(0, used), this.crc)
      used = this.write(`${CHECK_LINE_START}${JSON.stringify({ bytes: this.emitted + used, crc32: crc })}\n}\n`, used)
    }
    return this.emit(this.out.subarray(0, used))
  }

  /**
   * Document lines of a lazy collection from `at`, until the chunk is full
   * or the collection ends; answers where they end. A loop of its own, not
   * pieces from the generator: a compaction renders every stored session,
   * and the generator's three objects per document were a third of its time.
   */
  private writeDocuments(documents: LazyDocuments & { next: number }, at: number): number {
    const { ids, values } = documents
    const last = values.length - 1
    let n = documents.next
    for (; n <= last && at < CHUNK_BYTES; n++) {
      at = this.writeKey(ids[n]!, at)
      // Where the document lands is where it will be read from.
      const start = at
      const value = values[n]!
      if (typeof value === 'number') {
        const bytes = this.readRaw(value)
        this.room(at, bytes.length)
        at += bytes.copy(this.out, at)
      } else at = this.write(typeof value === 'string' ? value : JSON.stringify(value), at)
      this.lazySpans.offsets.push(this.emitted + start)
      this.lazySpans.lengths.push(at - start)
      at = this.write(n < last ? ',\n' : '\n', at)
    }
    documents.next = n
    if (n > last) this.documents = null
    return at
  }

  /** A document line's start, `      "id": `, at `at`; answers where it ends. An id JSON writes as it is (every id bula makes) is copied byte by byte. */
  private writeKey(id: string, at: number): number {
    this.room(at, DOCUMENT_INDENT.length + id.length + 4)
    const out = this.out
    for (let n = 0; n < DOCUMENT_INDENT.length; n++) out[at++] = DOCUMENT_INDENT.charCodeAt(n)
    out[at] = 0x22
    for (let n = 0; n < id.length; n++) {
      const code = id.charCodeAt(n)
      // Outside printable ASCII, or a quote or backslash: JSON.stringify knows how to escape it.
      if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return this.write(`${JSON.stringify(id)}: `, at)
      out[at + 1 + n] = code
    }
    at += id.length + 1
    out[at++] = 0x22
    out[at++] = 0x3a
    out[at++] = 0x20
    return at
  }

  /** Writes `text` as UTF-8 at `at`; answers where it ends. Short ASCII text (ids, commas) without a call into Node. */
  private write(text: string, at: number): number {
    this.room(at, text.length * 3)
    const out = this.out
    if (text.length <= SHORT_TEXT) {
      let n = 0
      for (; n < text.length; n++) {
        const code = text.charCodeAt(n)
        if (code >= 0x80) break
        out[at + n] = code
      }
      if (n === text.length) return at + n
    }
    return at + out.write(text, at)
  }

  /** Makes room for `bytes` more after `used`, keeping what is there. */
  private room(used: number, bytes: number): void {
    if (used + bytes <= this.out.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, used + bytes))
    this.out.copy(bigger, 0, 0, used)
    this.out = bigger
  }

  private emit(chunk: Buffer): Buffer {
    if (!this.done) this.crc = crc32(chunk, this.crc)
    this.emitted += chunk.length
    return chunk
  }
}

/** The documents of a lazy collection: SnapshotRenderer writes them in a loop of its own. */
interface LazyDocuments {
  ids: string[]
  values: LazyValue[]
}

function* renderPieces(collections: readonly FrozenCollection[], journal: JournalCoverage): Generator<string | LazyDocuments, void> {
  yield SNAPSHOT_HEAD
  for (let c = 0; c < collections.length; c++) {
    const { name, ids, values } = collections[c]!
    const after = c < collections.length - 1 ? ',' : ''
    if (values.length === 0) {
      yield `    ${JSON.stringify(name)}: {}${after}\n`
      continue
    }
    yield `    ${JSON.stringify(name)}: {\n`
    if (ids !== null) yield { ids, values }
    else {
      for (let n = 0; n < values.length; n++) {
        yield `${DOCUMENT_INDENT}${JSON.stringify((values[n] as Doc).id)}: ${JSON.stringify(values[n])}${n < values.length - 1 ? ',' : ''}\n`
      }
    }
    yield `    }${after}\n`
  }
  yield '  },\n'
  const grouped = collections.filter((collection) => collection.groups.length > 0)
  if (grouped.length === 0) yield '  "groups": {},\n'
  else {
    yield '  "groups": {\n'
    for (let c = 0; c < grouped.length; c++) {
      const { name, groups } = grouped[c]!
      yield `    ${JSON.stringify(name)}: {`
      for (let g = 0; g < groups.length; g++) {
        const [index, keys] = groups[g]!
        yield `${g > 0 ? ',' : ''}${JSON.stringify(index)}:{`
        for (let k = 0; k < keys.length; k++) {
          const [key, ids] = keys[k]!
          yield `${k > 0 ? ',' : ''}${JSON.stringify(key)}:[`
          for (let from = 0; from < ids.length; from += IDS_PER_PIECE) {
            const piece = JSON.stringify(ids.slice(from, from + IDS_PER_PIECE))
            yield `${from > 0 ? ',' : ''}${piece.slice(1, -1)}`
          }
          yield ']'
        }
        yield '}'
      }
      yield `}${c < grouped.length - 1 ? ',' : ''}\n`
    }
    yield '  },\n'
  }
  yield `  "journal": ${JSON.stringify(journal)},\n`
}

export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let written = 0; written < bytes.length; ) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
}
