import { LineSource } from './line-source.js'
import { DOCUMENT_INDENT } from './snapshot-render.js'

// One document per line, as DocumentState.freeze renders a collection: `      "id": {...},`.

const QUOTE = 34
const COMMA = 44
const COLON = 58
const SPACE = 32
const BACKSLASH = 92

/** The document lines of a lazy collection that start-up passed over: bytes [from, to) of the snapshot file. */
export interface DeferredSpan {
  collection: string
  from: number
  to: number
}

/**
 * The document lines of a lazy collection that start-up passed over
 * (LoadedSnapshot.deferred), located a slice at a time once the simulator is
 * up: each line is checked to be a document line, and its id and where its
 * JSON is in the file are handed on. The file was checked to be as written
 * (its CRC-32), so a line that is not one means it changed since.
 */
export class DeferredSection {
  private readonly source: LineSource
  /** Whether another document line must follow (the last one had a comma). */
  private more = true
  /** Set once a line was not a document line: the section stays unreadable, its lines after that one unlocated. */
  private failure: Error | null = null

  constructor(
    readonly span: DeferredSpan,
    fd: number,
    private readonly file: string,
  ) {
    this.source = new LineSource(fd, span.from, span.to)
  }

  /** Locates up to `lines` more documents; true once the section is done. */
  locate(lines: number, found: (id: string, offset: number, length: number) => void): boolean {
    if (this.failure) throw this.failure
    const { source } = this
    for (let n = 0; n < lines; n++) {
      if (!source.next()) {
        if (this.more) throw this.changed()
        return true
      }
      const { bytes, start, end } = source
      if (!this.more || !isDocumentStart(bytes, start, end)) throw this.changed()
      const member = documentLine(bytes, start, end)
      if (!member) throw this.changed()
      const [id, jsonStart, jsonEnd, comma] = member
      this.more = comma
      found(id, source.offset + jsonStart - start, jsonEnd - jsonStart)
    }
    return false
  }

  private changed(): Error {
    this.failure = new Error(`${this.file} changed while bula had it open: a line of "${this.span.collection}" is no longer as it was written.`)
    return this.failure
  }
}

/** `      "` at `at`: a document line. */
export function isDocumentStart(buf: Buffer, at: number, end: number): boolean {
  if (at + DOCUMENT_START_BYTES > end) return false
  for (let n = 0; n < DOCUMENT_START_BYTES - 1; n++) if (buf[at + n] !== SPACE) return false
  return buf[at + DOCUMENT_START_BYTES - 1] === QUOTE
}

const DOCUMENT_START_BYTES = DOCUMENT_INDENT.length + 1

/**
 * `      "id": {...}` or `      "id": {...},` between `start` and `end`: the
 * id, where its JSON is (the comma excluded), and whether the comma is there.
 */
export function documentLine(buf: Buffer, start: number, lineEnd: number): [string, number, number, boolean] | null {
  const comma = buf[lineEnd - 1] === COMMA
  const end = comma ? lineEnd - 1 : lineEnd
  const idStart = start + DOCUMENT_START_BYTES
  // Ids are short: a loop finds the closing quote sooner than a call to indexOf.
  let quote = idStart
  let escaped = false
  for (; quote < end; quote++) {
    const byte = buf[quote]!
    if (byte === QUOTE) break
    if (byte < SPACE) return null
    // An escape: its next byte (a quote, a backslash) is part of the id. The id is JSON.parse'd below.
    if (byte === BACKSLASH) {
      escaped = true
      quote++
    }
  }
  if (quote + 3 > end || buf[quote + 1] !== COLON || buf[quote + 2] !== SPACE) return null
  const id = escaped ? parsedId(buf.toString('utf8', idStart - 1, quote + 1)) : buf.toString('utf8', idStart, quote)
  return id === null ? null : [id, quote + 3, end, comma]
}

/**
 * An id with escapes (a quote, a backslash, a control character: bula's own
 * ids have none, a file edited by hand may), as JSON reads it; null when it
 * is not a JSON string. Such a line is still a document line: in a lazy
 * collection, passed over at start-up, there is no other path to read it.
 */
function parsedId(quoted: string): string | null {
  try {
    const id: unknown = JSON.parse(quoted)
    return typeof id === 'string' ? id : null
  } catch {
    return null
  }
}
