import type { Adapter } from 'lowdb'
import { closeSync, fstat, open as fsOpen, readSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { crc32 } from 'node:zlib'
import { documentLine, isDocumentStart, type DeferredSpan } from './document-lines.js'
import type { LoadedSnapshot, SnapshotData } from './document-state.js'
import { errorCode } from './error-info.js'
import { LineSource } from './line-source.js'
import { CHECK_LINE_START, SNAPSHOT_HEAD, writeAll, type JournalCoverage, type SnapshotSource } from './snapshot-render.js'
import { StoreOpenError, type Doc, type DocumentCheck } from './types.js'

/**
 * The lowdb adapter of the snapshot file. Its data is the JSON text itself:
 * the bytes as read, or a SnapshotSource that renders a state frozen at one
 * moment chunk by chunk into the file, so neither the event loop nor the
 * heap has to take the whole text at once. A write
 * replaces the file atomically and durably: temp file (mode 0600) in the
 * same folder, fdatasync, rename over the target, fsync of the folder.
 */
export class DurableTextFile implements Adapter<SnapshotContent | SnapshotSource> {
  constructor(readonly file: string) {}

  /** The file's bytes and a descriptor open on it, or null when it does not exist. */
  async read(): Promise<SnapshotContent | null> {
    return readSnapshotFile(this.file)
  }

  /** Bytes as read, or a rendered snapshot. */
  async write(text: SnapshotContent | SnapshotSource): Promise<void> {
    const temp = tempFileOf(this.file)
    // A temp file left by a crash may have any mode; a new one gets 0600 from the start.
    await rm(temp, { force: true })
    const handle = await open(temp, 'wx', 0o600)
    try {
      if ('writeTo' in text) await text.writeTo(handle)
      else await writeAll(handle, text.bytes ?? readRange(text.fd, 0, text.size))
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

/**
 * A snapshot file opened for reading: its descriptor (the caller closes it,
 * unless documents are left in it) and size. Its bytes are read a chunk at
 * a time as it is parsed (`bytes` is only for text given whole, as in tests).
 */
export interface SnapshotContent {
  fd: number
  size: number
  bytes: Buffer | null
}

async function readSnapshotFile(file: string): Promise<SnapshotContent | null> {
  let fd: number
  try {
    fd = await openFd(file, 'r')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    throw error
  }
  try {
    return { fd, size: (await fstatFd(fd)).size, bytes: null }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

const openFd = promisify(fsOpen)
const fstatFd = promisify(fstat)

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

/**
 * Parses and checks a snapshot; refusals name the file and leave it alone.
 * A file in the layout this code writes is read a line at a time, document
 * by document (no tree for the whole file, and no object with one key per
 * document); any other valid JSON (a file edited or reformatted by hand)
 * takes the general path, with the same result. In an intact file (its
 * `check` matches), the lines of the collections named in `lazy` are passed
 * over: `deferred` says where they are, for DeferredSection to locate each
 * document in them after start-up (its id, and where its JSON is), and the
 * document to be parsed when read.
 */
export function parseSnapshot(input: Buffer | string | SnapshotContent, file: string, lazy?: ReadonlySet<string>): LoadedSnapshot {
  const content: Source =
    typeof input === 'string' || Buffer.isBuffer(input)
      ? { fd: null, bytes: Buffer.from(input), size: Buffer.byteLength(input) }
      : input
  const fast = parseByLine(content, file, content.fd === null ? undefined : lazy)
  if (fast) return fast
  const data = parseWhole(wholeText(content), file)
  const collections = new Map<string, Map<string, Doc>>()
  for (const [name, docs] of Object.entries(data.collections)) collections.set(name, new Map(Object.entries(docs)))
  return { collections, groups: data.groups, journal: data.journal }
}

/** A snapshot to parse: read through `fd`, or held in `bytes`. */
interface Source {
  fd: number | null
  size: number
  bytes: Buffer | null
}

function wholeText(content: Source): string {
  return (content.bytes ?? readRange(content.fd!, 0, content.size)).toString('utf8')
}

function readRange(fd: number, from: number, to: number): Buffer {
  const bytes = Buffer.allocUnsafe(to - from)
  for (let filled = 0; filled < bytes.length; ) {
    const read = readSync(fd, bytes, filled, bytes.length - filled, from + filled)
    if (read === 0) throw new Error(`the file ended at ${from + filled}, before the ${to} bytes it had`)
    filled += read
  }
  return bytes
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

const HEAD_LINES = SNAPSHOT_HEAD.split('\n').slice(0, -1)

/**
 * The snapshot in the layout DocumentState.freeze renders, line by line:
 * the head, then per collection `"name": {`, one `"id": {...}` line per
 * document, `}`, then the rest (groups, journal, check) as one small JSON
 * object. Every line is checked to be exactly what the grammar allows at
 * that point (commas included), so a file accepted here is valid JSON
 * meaning the same as JSON.parse reads it. Anything else (a hand-edited
 * line, a duplicate collection, a bad document) answers null and the caller
 * parses the whole text instead, which also words any refusal.
 *
 * The CRC-32 of the file is computed as it is read and compared with its
 * `check` (read first, from the end of the file). When the check is there,
 * the document lines of lazy collections are passed over unread (their
 * collection's closing line is found natively; no document line can start
 * like it); if the CRC then does not match, the file takes the general path,
 * where every document is parsed and checked.
 */
function parseByLine(content: Source, file: string, lazy: ReadonlySet<string> | undefined): LoadedSnapshot | null {
  const check = expectedCheck(content)
  let crc = 0
  const checksum = (bytes: Buffer, offset: number): void => {
    if (check && offset < check.bytes) crc = crc32(bytes.subarray(0, check.bytes - offset), crc)
  }
  const source = new LineSource(content.fd, 0, content.size, checksum, content.bytes ?? undefined)
  for (const expected of HEAD_LINES) if (!source.next() || source.text() !== expected) return null
  const collections = new Map<string, Map<string, Doc>>()
  const deferred: DeferredSpan[] = []
  let more = true
  let first = true
  for (;;) {
    if (!source.next()) return null
    const line = source.text()
    if (line === '  },' || line === '  }') {
      // `{` then `}` with nothing in between: the last collection must not have had a comma, nor may a comma come first.
      if (more && !first) return null
      const rest = source.rest().toString('utf8')
      if (line === '  }') return rest.trim() === '}' && deferred.length === 0 ? { collections } : null
      let tail: unknown
      try {
        tail = JSON.parse(`{${rest}`)
      } catch {
        return null
      }
      if (!isRecord(tail) || Object.keys(tail).length === 0) return null
      if (Object.hasOwn(tail, 'format') || Object.hasOwn(tail, 'version') || Object.hasOwn(tail, 'collections')) return null
      const intact = check !== null && crc === check.crc32
      const loaded: LoadedSnapshot = { collections, groups: tail.groups, journal: tail.journal, intact }
      if (deferred.length === 0) return loaded
      // Lines passed over are taken as written only from a file as written.
      return intact ? { ...loaded, deferred } : null
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
    if (check && lazy?.has(name)) {
      const lines = source.skipTo(COLLECTION_END)
      if (!lines || !isCollectionEnd(source.text())) return null
      deferred.push({ collection: name, from: lines[0], to: lines[1] })
      collections.set(name, new Map())
    } else {
      const docs = readDocuments(source)
      if (!docs) return null
      collections.set(name, docs)
    }
    more = source.text() === '    },'
  }
}

/** How the closing line of a collection's documents starts: no document line does. */
const COLLECTION_END = '    }'
const isCollectionEnd = (line: string): boolean => line === '    }' || line === '    },'

/**
 * Document lines from the next line on, until a line that is not one (left
 * current: the collection's closing line, checked to be one). Null if any
 * line is not exactly a document line.
 */
function readDocuments(source: LineSource): Map<string, Doc> | null {
  const docs = new Map<string, Doc>()
  let docMore = true
  let docFirst = true
  for (;;) {
    if (!source.next()) return null
    const { bytes, start, end } = source
    if (!isDocumentStart(bytes, start, end)) {
      if (!isCollectionEnd(source.text()) || docFirst || docMore) return null
      return docs
    }
    if (!docMore) return null
    docFirst = false
    const member = documentLine(bytes, start, end)
    if (!member) return null
    const [id, jsonStart, jsonEnd, comma] = member
    docMore = comma
    const doc = parseJson(bytes.toString('utf8', jsonStart, jsonEnd))
    if (!isDoc(doc, id)) return null
    docs.set(doc.id, doc)
  }
}

/** Bytes read from the end of the file to find its check line. */
const TAIL_BYTES = 64 * 1024

/**
 * The file's `check`, its last member: the length and CRC-32 of everything
 * before the check line, read from the end of the file. Null when there is
 * none (files of older versions, or edited by hand), or it does not say
 * where its own line starts: such a file is read with every check.
 */
function expectedCheck(content: Source): { bytes: number; crc32: number } | null {
  const tailStart = Math.max(0, content.size - TAIL_BYTES)
  const tail = content.bytes ? content.bytes.subarray(tailStart) : readRange(content.fd!, tailStart, content.size)
  const at = tail.lastIndexOf(`\n${CHECK_LINE_START}`) + 1
  if (at === 0) return null
  const lineEnd = tail.indexOf(10, at)
  const check = parseJson(tail.toString('utf8', at + CHECK_LINE_START.length, lineEnd < 0 ? tail.length : lineEnd))
  if (!isRecord(check) || check.bytes !== tailStart + at || typeof check.crc32 !== 'number') return null
  return { bytes: check.bytes, crc32: check.crc32 }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Refuses a snapshot holding a document `check` finds wrong, naming it. Only
 * for a file not intact: one whose `check` matches is as bula wrote it.
 */
export function checkDocuments(data: LoadedSnapshot, file: string, check: DocumentCheck): void {
  for (const [name, docs] of data.collections) {
    for (const [id, doc] of docs) {
      // Every document of a file not intact is parsed (only an intact one leaves lazy documents as text).
      const problem = typeof doc === 'object' ? check(name, doc) : null
      if (problem !== null) throw new StoreOpenError(`${file}: collection "${name}", document "${id}" is damaged: ${problem} ${UNCHANGED}`, file)
    }
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
