import { closeSync, openSync, readSync } from 'node:fs'
import type { Doc } from './types.js'

/**
 * Where documents of lazy collections are in the snapshot file they were
 * last written to or read from (the origin): documents the state keeps as a
 * number, an index here, instead of in memory. The store keeps the origin
 * open, so a document is read even after a compaction renamed a newer
 * snapshot over its name; each snapshot written makes itself the origin
 * (replace). docs/storage.md, "Lazy collections".
 */
export class RawDocs {
  private fd: number | null
  private offsets: number[]
  private lengths: number[]
  /** Counts the origins: a reader's window from an earlier one is not reused. */
  private origin = 0

  constructor(
    private file: string,
    fd: number,
    spans: { offsets: number[]; lengths: number[] } = { offsets: [], lengths: [] },
  ) {
    this.fd = fd
    this.offsets = spans.offsets
    this.lengths = spans.lengths
  }

  /** Records a document of `length` bytes at `offset` in the origin; answers its index. */
  add(offset: number, length: number): number {
    this.offsets.push(offset)
    return this.lengths.push(length) - 1
  }

  /** The document `index` refers to, parsed. */
  read(index: number, id: string): Doc {
    return this.parse(this.bytes(this.offsets[index]!, this.lengths[index]!, this.lengths[index]!), id)
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
      throw new Error(`${this.file} changed while bula had it open: document "${id}" is no longer where it was written.`)
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
      // A reader may live across a compaction (a scan in slices): a window read from the previous origin is not reused.
      if (windowOrigin !== this.origin || offset < windowStart || offset + length > windowStart + window.length) {
        window = this.bytes(offset, Math.max(length, WINDOW_BYTES), length)
        windowStart = offset
        windowOrigin = this.origin
      }
      return window.subarray(offset - windowStart, offset - windowStart + length)
    }
  }

  /**
   * After a snapshot replaced `file` holding documents at these spans (by
   * index): read from it from now on. Every index handed out before is void,
   * the state having moved each document still as it was to its new index.
   */
  replace(file: string, spans: { offsets: number[]; lengths: number[] }): void {
    const fd = openSync(file, 'r')
    this.close()
    this.fd = fd
    this.file = file
    this.offsets = spans.offsets
    this.lengths = spans.lengths
    this.origin++
  }

  close(): void {
    if (this.fd === null) return
    closeSync(this.fd)
    this.fd = null
  }

  /** Up to `length` bytes from `offset`: fewer only at the end of the file, never fewer than `needed`. */
  private bytes(offset: number, length: number, needed: number): Buffer {
    if (this.fd === null) throw new Error(`The store ${this.file} is closed.`)
    const buffer = Buffer.allocUnsafe(length)
    let filled = 0
    while (filled < length) {
      const read = readSync(this.fd, buffer, filled, length - filled, offset + filled)
      if (read === 0) break
      filled += read
    }
    if (filled < needed) throw new Error(`${this.file} changed while bula had it open: it is shorter than when it was written.`)
    return buffer.subarray(0, filled)
  }
}

const WINDOW_BYTES = 1 << 20
