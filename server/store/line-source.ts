import { readSync } from 'node:fs'

const NEWLINE = 10
const CHUNK_BYTES = 4 << 20

/**
 * The lines of a range of a file, read a chunk at a time from a descriptor
 * (or taken from a buffer that already holds the range). Never the whole
 * file in memory: at 100,000 sessions one buffer of the file was 130 MB to
 * fault in, and longer to read than 4 MiB chunks reused.
 *
 * After next() answered true, the line is `bytes[start, end)` (its newline
 * excluded) and begins at byte `offset` of the file.
 */
export class LineSource {
  private buffer: Buffer
  /** The valid part of `buffer`. */
  private view: Buffer
  /** File offset of buffer[0]. */
  private base: number
  /** The next unread byte of `view`. */
  private at = 0
  start = 0
  end = 0

  /**
   * @param fd Where to read from; null when `whole` holds the range.
   * @param position The range's first byte in the file.
   * @param limit The byte after the range.
   * @param onRead Sees every byte of the range once, in order, as it is read (a checksum).
   */
  constructor(
    private readonly fd: number | null,
    private position: number,
    private readonly limit: number,
    private readonly onRead?: (bytes: Buffer, offset: number) => void,
    whole?: Buffer,
  ) {
    this.base = position
    if (whole) {
      this.buffer = whole
      this.view = whole
      this.position = limit
      onRead?.(whole, this.base)
    } else {
      this.buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(limit - position, 1)))
      this.view = this.buffer.subarray(0, 0)
    }
  }

  /** What the current line and the rest of the chunk are read from. */
  get bytes(): Buffer {
    return this.view
  }

  /** File offset of the current line's first byte. */
  get offset(): number {
    return this.base + this.start
  }

  /** Moves to the next line; false at the end of the range. A last line without its newline counts. */
  next(): boolean {
    for (;;) {
      const newline = this.view.indexOf(NEWLINE, this.at)
      if (newline >= 0) {
        this.start = this.at
        this.end = newline
        this.at = newline + 1
        return true
      }
      if (!this.fill()) {
        if (this.at >= this.view.length) return false
        this.start = this.at
        this.end = this.view.length
        this.at = this.end
        return true
      }
    }
  }

  /**
   * Passes over the lines after the current one up to the first that starts
   * with `prefix`, which becomes the current line. The search is one native
   * scan per chunk, not a step per line: the bytes passed over are still
   * read, and seen by `onRead`. Answers where the lines passed over are in
   * the file, [from, to); null when there are none, or the range ends first.
   */
  skipTo(prefix: string): [number, number] | null {
    const needle = Buffer.from(`\n${prefix}`)
    const from = this.base + this.at
    // From the newline that ended the current line: a line right after it may be the one.
    let searchFrom = this.at - 1
    for (;;) {
      const found = this.view.indexOf(needle, searchFrom)
      if (found >= 0) {
        if (found === this.at - 1) return null
        this.at = found + 1
        const to = this.base + this.at
        return this.next() ? [from, to] : null
      }
      // Keeps the bytes a needle split across two chunks could begin in.
      this.at = Math.max(this.at, this.view.length - needle.length + 1)
      if (!this.fill()) return null
      searchFrom = 0
    }
  }

  /** The current line as text. */
  text(): string {
    return this.view.toString('utf8', this.start, this.end)
  }

  /** Everything after the current line, to the end of the range. */
  rest(): Buffer {
    while (this.fill());
    return this.view.subarray(this.at)
  }

  /** Reads more of the range behind what is left unread; false when nothing is left to read. */
  private fill(): boolean {
    if (this.fd === null || this.position >= this.limit) return false
    const left = this.view.length - this.at
    if (this.at > 0) {
      this.buffer.copy(this.buffer, 0, this.at, this.view.length)
      this.base += this.at
      this.at = 0
    }
    if (left === this.buffer.length) {
      // A line longer than the buffer: twice the room.
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2)
      this.buffer.copy(bigger, 0, 0, left)
      this.buffer = bigger
    }
    const read = readSync(this.fd, this.buffer, left, Math.min(this.buffer.length - left, this.limit - this.position), this.position)
    if (read === 0) throw new Error(`the file ended at ${this.position}, before the ${this.limit} bytes it had`)
    this.onRead?.(this.buffer.subarray(left, left + read), this.position)
    this.position += read
    this.view = this.buffer.subarray(0, left + read)
    return true
  }
}
