import { closeSync, openSync, readSync } from 'node:fs'
import type { Doc } from './types.js'

/**
 * Documents of lazy collections that start-up left unparsed: where each one's
 * JSON is in the snapshot file it was read from (the origin). The store keeps
 * that file open, so a document is read and parsed on first use even after a
 * compaction renamed a newer snapshot over the name; each compaction copies
 * the bytes into the new snapshot and moves the origin there
 * (docs/storage.md, "Lazy collections").
 */
export class RawDocs {
  private fd: number | null
  private offsets: number[] = []
  private readonly lengths: number[] = []
  /** Counts the files documents were read from: moveTo starts the next. */
  private origin = 0

  constructor(
    private file: string,
    fd: number,
  ) {
    this.fd = fd
  }

  get count(): number {
    return this.lengths.length
  }

  /** Records a document of `length` bytes at `offset` in the file; answers its index. */
  add(offset: number, length: number): number {
    this.offsets.push(offset)
    return this.lengths.push(length) - 1
  }

  /** The document `index` refers to, parsed; a document that is not one means the file changed under the store. */
  read(index: number, id: string): Doc {
    return this.parse(this.bytes(index, this.offsets[index]!), id)
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
      throw new Error(`${this.file} changed while bula had it open: document "${id}" is no longer where start-up found it.`)
    }
    return doc as Doc
  }

  /** A reader for many documents in file order: one read per MiB instead of one per document. */
  reader(): (index: number) => Buffer {
    let window: Buffer = Buffer.alloc(0)
    let windowStart = 0
    let windowOrigin = this.origin
    return (index) => {
      const offset = this.offsets[index]!
      const length = this.lengths[index]!
      // A reader may live across a compaction (a scan in slices): a window read from the previous file is not reused.
      if (windowOrigin !== this.origin || offset < windowStart || offset + length > windowStart + window.length) {
        window = this.bytes(index, offset, Math.max(length, WINDOW_BYTES))
        windowStart = offset
        windowOrigin = this.origin
      }
      return window.subarray(offset - windowStart, offset - windowStart + length)
    }
  }

  /** After a snapshot holding these documents at `offsets` replaced `file`: read them from there from now on. */
  moveTo(file: string, offsets: Float64Array): void {
    const fd = openSync(file, 'r')
    this.closeOrigin()
    this.fd = fd
    this.file = file
    this.offsets = Array.from(offsets)
    this.origin++
  }

  close(): void {
    this.closeOrigin()
  }

  private closeOrigin(): void {
    if (this.fd === null) return
    closeSync(this.fd)
    this.fd = null
  }

  /** `length` bytes from `offset` (fewer only at the end of the file). */
  private bytes(index: number, offset: number, length = this.lengths[index]!): Buffer {
    if (this.fd === null) throw new Error(`The store ${this.file} is closed.`)
    const buffer = Buffer.allocUnsafe(length)
    let filled = 0
    while (filled < length) {
      const read = readSync(this.fd, buffer, filled, length - filled, offset + filled)
      if (read === 0) break
      filled += read
    }
    if (filled < this.lengths[index]!) throw new Error(`${this.file} changed while bula had it open: it is shorter than when it was read.`)
    return buffer.subarray(0, filled)
  }
}

const WINDOW_BYTES = 1 << 20
