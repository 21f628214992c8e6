import type { Adapter } from 'lowdb'
import { closeSync, fstat, open as fsOpen, read, type Stats } from 'node:fs'
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { crc32 } from 'node:zlib'
import type { LoadedSnapshot, SnapshotData } from './document-state.js'
import { errorCode } from './error-info.js'
import { RawDocs } from './raw-docs.js'
import { CHECK_LINE_START, DOCUMENT_INDENT, SNAPSHOT_HEAD, SnapshotRenderer, type JournalCoverage } from './snapshot-render.js'
import { StoreOpenError, type Doc } from './types.js'

/**
 * The lowdb adapter of the snapshot file. Its data is the JSON text itself:
 * the bytes as read, or a SnapshotRenderer that renders a state frozen at one moment
 * chunk by chunk, each chunk written before the next is rendered, so neither
 * the event loop nor the heap has to take the whole text at once. A write
 * replaces the file atomically and durably: temp file (mode 0600) in the
 * same folder, fdatasync, rename over the target, fsync of the folder.
 */
export class DurableTextFile implements Adapter<SnapshotContent | SnapshotRenderer> {
  constructor(readonly file: string) {}

  /** The file's bytes and a descriptor open on it, or null when it does not exist. */
  async read(): Promise<SnapshotContent | null> {
    return readSnapshotFile(this.file)
  }

  /** Bytes as read, or a renderer's chunks. */
  async write(text: SnapshotContent | SnapshotRenderer): Promise<void> {
    const temp = tempFileOf(this.file)
    // A temp file left by a crash may have any mode; a new one gets 0600 from the start.
    await rm(temp, { force: true })
    const handle = await open(temp, 'wx', 0o600)
    try {
      if (text instanceof SnapshotRenderer) for (let chunk = text.next(); chunk !== null; chunk = text.next()) await writeAll(handle, chunk)
      else await writeAll(handle, text.bytes)
      await handle.datasync()
    } catch (error) {
      await handle.close()
      await rm(temp, { force: true })
      throw error
    }
    await handle.close()
    await rename(temp, this.file)
    await syncDirectory(path.dirname(this.file))
  }
}

/** A snapshot file as read: its bytes, and a descriptor open on the same file (the caller closes it). */
export interface SnapshotContent {
  bytes: Buffer
  fd: number
}

interface Prefetched extends SnapshotContent {
  stats: Stats
}

/** Snapshots being read ahead of openStore, by absolute path (see prefetchSnapshot). */
const prefetched = new Map<string, Promise<Prefetched | null>>()

/**
 * Starts reading a snapshot before the store is opened, so that the read
 * overlaps what the process does first (`bula serve` loading its modules).
 * Only a hint: openStore takes the bytes only if the file is still the one
 * that was read (same inode, size and times) once it holds the lock, and
 * reads it again otherwise.
 */
export function prefetchSnapshot(file: string): void {
  const absolute = path.resolve(file)
  if (prefetched.has(absolute)) return
  const reading = readNow(absolute).catch(() => null)
  prefetched.set(absolute, reading)
}

async function readSnapshotFile(file: string): Promise<SnapshotContent | null> {
  const early = prefetched.get(file)
  prefetched.delete(file)
  const content = early ? await early : null
  if (content) {
    const now = await stat(file).catch(() => null)
    if (now && sameFile(now, content.stats)) return content
    closeSync(content.fd)
  }
  return readNow(file)
}

const sameFile = (a: Stats, b: Stats): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

async function readNow(file: string): Promise<Prefetched | null> {
  let fd: number
  try {
    fd = await openFd(file, 'r')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    throw error
  }
  try {
    const stats = await fstatFd(fd)
    const bytes = Buffer.allocUnsafe(stats.size)
    let filled = 0
    while (filled < bytes.length) {
      const read = await readFd(fd, bytes, filled, bytes.length - filled, filled)
      if (read === 0) break
      filled += read
    }
    return { bytes: bytes.subarray(0, filled), fd, stats }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

const openFd = promisify(fsOpen)
const fstatFd = promisify(fstat)
const readFd = (fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))))

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let written = 0; written < bytes.length; ) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
}

export function tempFileOf(file: string): string {
  return `${file}.tmp`
}

/** Makes renames and new files in the folder survive a power cut. */
export async function syncDirectory(directory: string): Promise<void> {
  // Windows cannot open a folder as a file; NTFS journals its metadata itself.
  if (process.platform === 'win32') return
  const handle = await open(directory, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** What start-up may leave unparsed, and the open file it reads such documents from later. */
export interface LazyOptions {
  /** Collections whose documents are parsed on first read. */
  names: ReadonlySet<string>
  /** The snapshot file, open for reading: it stays open while documents are left in it. */
  fd: number
}

/**
 * Parses and checks the snapshot file's bytes; refusals name the file and
 * leave it alone. A file in the layout this code writes is read document by
 * document (no tree for the whole file, and no object with one key per
 * document); any other valid JSON (a file edited or reformatted by hand)
 * takes the general path, with the same result. When the file's `check`
 * matches (it is byte for byte as bula wrote it), documents of lazy
 * collections are left unparsed: `raw` says where they are.
 */
export function parseSnapshot(input: Buffer | string, file: string, lazy?: LazyOptions): LoadedSnapshot {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input
  const fast = parseByLine(bytes, file, lazy)
  if (fast) return fast
  const data = parseWhole(bytes.toString('utf8'), file)
  const collections = new Map<string, Map<string, Doc>>()
  for (const [name, docs] of Object.entries(data.collections)) collections.set(name, new Map(Object.entries(docs)))
  return { collections, groups: data.groups, journal: data.journal }
}

function parseWhole(text: string, file: string): SnapshotData {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new StoreOpenError(`${file} is not valid JSON (${(error as Error).message}). ${UNCHANGED}`, file)
  }
  if (!isRecord(data) || data.format !== 'bula-data') {
    throw new StoreOpenError(`${file} is not a bula data file (it has no "format": "bula-data"). ${UNCHANGED}`, file)
  }
  if (data.version !== 1) {
    throw new StoreOpenError(
      `${file} has data format version ${JSON.stringify(data.version)}; this bula reads version 1 only (a newer bula may have written it). ${UNCHANGED}`,
      file,
    )
  }
  if (!isRecord(data.collections)) throw new StoreOpenError(`${file} has no "collections" object. ${UNCHANGED}`, file)
  for (const [name, docs] of Object.entries(data.collections)) {
    if (!isRecord(docs)) throw new StoreOpenError(`${file}: collection "${name}" is not an object of documents. ${UNCHANGED}`, file)
    for (const [id, doc] of Object.entries(docs)) {
      if (!isDoc(doc, id)) throw new StoreOpenError(`${file}: collection "${name}", document "${id}" is not an object whose "id" is "${id}". ${UNCHANGED}`, file)
    }
  }
  return data as unknown as SnapshotData
}

/**
 * `    "name": {`, `    "name": {}` or `    "name": {},`: the name and the form, or null.
 */
function collectionLine(line: string): { name: unknown; empty: boolean; comma: boolean } | null {
  if (!line.startsWith('    "')) return null
  for (const [ending, empty, comma] of [[': {', false, false], [': {}', true, false], [': {},', true, true]] as const) {
    if (line.endsWith(ending)) return { name: parseJson(line.slice(4, -ending.length)), empty, comma }
  }
  return null
}

const NEWLINE = 10
const QUOTE = 34
const COMMA = 44
const COLON = 58
const SPACE = 32
const BACKSLASH = 92

/**
 * The snapshot in the layout DocumentState.freeze renders, line by line:
 * the head, then per collection `"name": {`, one `"id": {...}` line per
 * document, `}`, then the rest (groups, journal, check) as one small JSON
 * object. Every line is checked to be exactly what the grammar allows at
 * that point (commas included), so a file accepted here is valid JSON
 * meaning the same as JSON.parse reads it. Anything else (a hand-edited
 * line, a duplicate collection, a bad document) answers null and the caller
 * parses the whole text instead, which also words any refusal. In an intact
 * file (its check matches) the lines of a lazy collection are not even
 * split here: the collection's bytes are handed over as one section, which
 * the state reads after start-up.
 */
function parseByLine(buf: Buffer, file: string, lazy: LazyOptions | undefined): LoadedSnapshot | null {
  if (buf.length < SNAPSHOT_HEAD.length || buf.toString('utf8', 0, SNAPSHOT_HEAD.length) !== SNAPSHOT_HEAD) return null
  const intact = isIntact(buf)
  const collections = new Map<string, Map<string, Doc | number>>()
  const deferred: DeferredSection[] = []
  let at = SNAPSHOT_HEAD.length
  const lineEnd = (): number => {
    const end = buf.indexOf(NEWLINE, at)
    return end < 0 ? buf.length : end
  }
  const nextLine = (): string | null => {
    if (at >= buf.length) return null
    const end = lineEnd()
    const line = buf.toString('utf8', at, end)
    at = end + 1
    return line
  }
  let more = true
  let first = true
  for (;;) {
    const line = nextLine()
    if (line === null) return null
    if (line === '  },' || line === '  }') {
      // `{` then `}` with nothing in between: the last collection must not have had a comma, nor may a comma come first.
      if (more && !first) return null
      if (line === '  }') return buf.toString('utf8', at).trim() === '}' ? { collections } : null
      let tail: unknown
      try {
        tail = JSON.parse(`{${buf.toString('utf8', at)}`)
      } catch {
        return null
      }
      if (!isRecord(tail) || Object.keys(tail).length === 0) return null
      if (Object.hasOwn(tail, 'format') || Object.hasOwn(tail, 'version') || Object.hasOwn(tail, 'collections')) return null
      const loaded: LoadedSnapshot = { collections, groups: tail.groups, journal: tail.journal, intact }
      return deferred.length > 0 && lazy ? { ...loaded, deferred, raw: new RawDocs(file, lazy.fd) } : loaded
    }
    if (!more) return null
    first = false
    const opened = collectionLine(line)
    if (!opened) return null
    const { name } = opened
    if (typeof name !== 'string' || collections.has(name)) return null
    more = opened.comma
    if (opened.empty) {
      collections.set(name, new Map())
      continue
    }
    if (intact && lazy?.names.has(name)) {
      // Its documents, one per line, end where the collection's closing line starts (a document line holds no raw newline).
      const closing = buf.indexOf(SECTION_END, at)
      if (closing < 0) return null
      deferred.push({ name, offset: at, bytes: buf.subarray(at, closing + 1) })
      at = closing + 1
      const closingLine = nextLine()
      if (closingLine !== '    }' && closingLine !== '    },') return null
      more = closingLine === '    },'
      continue
    }
    const docs = new Map<string, Doc | number>()
    collections.set(name, docs)
    // Documents until the collection's closing line, each read in place from the bytes.
    let docMore = true
    let docFirst = true
    for (;;) {
      if (at >= buf.length) return null
      if (!isDocumentStart(buf, at)) {
        const closing = nextLine()
        if ((closing !== '    }' && closing !== '    },') || docFirst || docMore) return null
        more = closing === '    },'
        break
      }
      if (!docMore) return null
      docFirst = false
      const end = lineEnd()
      docMore = buf[end - 1] === COMMA
      const member = documentLine(buf, at, docMore ? end - 1 : end)
      if (!member) return null
      const [id, jsonStart, jsonEnd] = member
      const doc = parseJson(buf.toString('utf8', jsonStart, jsonEnd))
      if (!isDoc(doc, id)) return null
      docs.set(doc.id, doc)
      at = end + 1
    }
  }
}

/** Where a collection's document lines end: its closing line. */
const SECTION_END = '\n    }'

/**
 * The document lines of a lazy collection in an intact snapshot, not split
 * yet: `bytes` starts at byte `offset` of the file.
 */
export interface DeferredSection {
  name: string
  offset: number
  bytes: Buffer
}

/**
 * One line of a deferred section from `at`: the document's id, where its
 * JSON is in the section, and where the next line starts. The file is
 * intact, so the line is as the renderer wrote it.
 */
export function sectionLine(bytes: Buffer, at: number): { id: string; start: number; end: number; next: number } {
  const quote = bytes.indexOf(QUOTE, at + DOCUMENT_START_BYTES)
  let end = bytes.indexOf(NEWLINE, quote)
  if (end < 0) end = bytes.length
  const next = end + 1
  if (bytes[end - 1] === COMMA) end--
  return { id: bytes.toString('utf8', at + DOCUMENT_START_BYTES, quote), start: quote + 3, end, next }
}

/** `      "` at `at`: a document line. */
function isDocumentStart(buf: Buffer, at: number): boolean {
  if (at + DOCUMENT_START_BYTES > buf.length) return false
  for (let n = 0; n < DOCUMENT_START_BYTES - 1; n++) if (buf[at + n] !== SPACE) return false
  return buf[at + DOCUMENT_START_BYTES - 1] === QUOTE
}

const DOCUMENT_START_BYTES = DOCUMENT_INDENT.length + 1

/** `      "id": {...}` between `start` and `end` (the comma excluded): the id (no escapes; others take the general path) and where its JSON is. */
function documentLine(buf: Buffer, start: number, end: number): [string, number, number] | null {
  const idStart = start + DOCUMENT_START_BYTES
  const quote = buf.indexOf(QUOTE, idStart)
  if (quote < 0 || quote + 3 > end || buf[quote + 1] !== COLON || buf[quote + 2] !== SPACE) return null
  // A backslash or a control character would need JSON's unescaping: rare, left to JSON.parse of the whole file.
  for (let n = idStart; n < quote; n++) {
    const byte = buf[n]!
    if (byte < SPACE || byte === BACKSLASH) return null
  }
  return [buf.toString('utf8', idStart, quote), quote + 3, end]
}

/**
 * Whether the snapshot is byte for byte as written: its last member, `check`,
 * gives the length and CRC-32 of everything before the check line, and both
 * match. A file edited by hand fails this and is read with every check.
 */
function isIntact(buf: Buffer): boolean {
  const checkLine = buf.lastIndexOf(`\n${CHECK_LINE_START}`) + 1
  if (checkLine === 0) return false
  const lineEnd = buf.indexOf(NEWLINE, checkLine)
  const check = parseJson(buf.toString('utf8', checkLine + CHECK_LINE_START.length, lineEnd < 0 ? buf.length : lineEnd))
  if (!isRecord(check) || check.bytes !== checkLine || typeof check.crc32 !== 'number') return false
  return crc32(buf.subarray(0, checkLine)) === check.crc32
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The snapshot's journal coverage; anything malformed means none, so the whole journal is replayed (always safe). */
export function coverageOf(data: LoadedSnapshot): JournalCoverage | null {
  const { journal } = data
  if (!isRecord(journal) || typeof journal.sha256 !== 'string') return null
  const { bytes } = journal
  return typeof bytes === 'number' && Number.isSafeInteger(bytes) && bytes >= 0 ? { bytes, sha256: journal.sha256 } : null
}

export const UNCHANGED = 'The file was not changed; fix it or move it away.'

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function isDoc(value: unknown, id: string): value is Doc {
  return isRecord(value) && value.id === id
}
