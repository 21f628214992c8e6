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
