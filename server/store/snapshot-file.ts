import type { Adapter } from 'lowdb'
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { DOCUMENT_INDENT, SNAPSHOT_HEAD, type JournalCoverage, type LoadedSnapshot, type SnapshotData, type SnapshotText } from './document-state.js'
import { errorCode } from './error-info.js'
import { StoreOpenError, type Doc } from './types.js'

/**
 * The lowdb adapter of the snapshot file. Its data is the JSON text itself:
 * the store renders it synchronously at the moment it takes the snapshot,
 * so an object changed while the bytes travel to the disk cannot leak into
 * the file. A write replaces the file atomically and durably: temp file
 * (mode 0600) in the same folder, fdatasync, rename over the target, fsync
 * of the folder.
 */
export class DurableTextFile implements Adapter<string | SnapshotText> {
  constructor(readonly file: string) {}

  /** The file's text, or null when it does not exist. */
  async read(): Promise<string | null> {
    try {
      return await readFile(this.file, 'utf8')
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null
      throw error
    }
  }

  /** Text as a string, or as rendered by DocumentState (UTF-8 chunks). */
  async write(text: string | SnapshotText): Promise<void> {
    const temp = tempFileOf(this.file)
    // A temp file left by a crash may have any mode; a new one gets 0600 from the start.
    await rm(temp, { force: true })
    const handle = await open(temp, 'wx', 0o600)
    try {
      if (typeof text === 'string') await handle.writeFile(text)
      else for (const chunk of text.chunks) await writeAll(handle, chunk)
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

/**
 * Parses and checks the snapshot file's text; refusals name the file and
 * leave it alone. A file in the layout this code writes is read document by
 * document (no tree for the whole file, and no object with one key per
 * document); any other valid JSON (a file edited or reformatted by hand)
 * takes the general path, with the same result.
 */
export function parseSnapshot(text: string, file: string): LoadedSnapshot {
  const fast = parseByLine(text)
  if (fast) return fast
  const data = parseWhole(text, file)
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
 * `    "name": {`, `    "name": {}` or `    "name": {},`: the name and the form, or null. No regular
 * expression: V8 keeps the last string a regular expression ran on (RegExp.input), and a line
 * sliced from the file's text would keep the whole text alive with it.
 */
function collectionLine(line: string): { name: unknown; empty: boolean; comma: boolean } | null {
  if (!line.startsWith('    "')) return null
  for (const [ending, empty, comma] of [[': {', false, false], [': {}', true, false], [': {},', true, true]] as const) {
    if (line.endsWith(ending)) return { name: parseJson(line.slice(4, -ending.length)), empty, comma }
  }
  return null
}

/**
 * The snapshot in the layout DocumentState.render writes, line by line:
 * the head, then per collection `"name": {`, one `"id": {...}` line per
 * document, `}`, then the rest (groups, journal) as one small JSON object.
 * Every line is checked to be exactly what the grammar allows at that point
 * (commas included), so a file accepted here is valid JSON meaning the same
 * as JSON.parse reads it. Anything else (a hand-edited line, a duplicate
 * collection, a bad document) answers null and the caller parses the whole
 * text instead, which also words any refusal.
 */
function parseByLine(text: string): LoadedSnapshot | null {
  if (!text.startsWith(SNAPSHOT_HEAD)) return null
  const collections = new Map<string, Map<string, Doc>>()
  let at = SNAPSHOT_HEAD.length
  const nextLine = (): string | null => {
    if (at >= text.length) return null
    let end = text.indexOf('\n', at)
    if (end < 0) end = text.length
    const line = text.slice(at, end)
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
      const rest = text.slice(at)
      if (line === '  }') return rest.trim() === '}' ? { collections } : null
      let tail: unknown
      try {
        tail = JSON.parse(`{${rest}`)
      } catch {
        return null
      }
      if (!isRecord(tail) || Object.keys(tail).length === 0) return null
      if (Object.hasOwn(tail, 'format') || Object.hasOwn(tail, 'version') || Object.hasOwn(tail, 'collections')) return null
      return { collections, groups: tail.groups, journal: tail.journal }
    }
    if (!more) return null
    first = false
    const opened = collectionLine(line)
    if (!opened) return null
    const { name } = opened
    if (typeof name !== 'string' || collections.has(name)) return null
    const docs = new Map<string, Doc>()
    collections.set(name, docs)
    more = opened.comma
    if (opened.empty) continue
    // Documents until the collection's closing line; a document line is read in place, without a copy of the line.
    let docMore = true
    let docFirst = true
    for (;;) {
      if (at >= text.length) return null
      if (!text.startsWith(DOCUMENT_START, at)) {
        const closing = nextLine()
        if ((closing !== '    }' && closing !== '    },') || docFirst || docMore) return null
        more = closing === '    },'
        break
      }
      if (!docMore) return null
      docFirst = false
      let end = text.indexOf('\n', at)
      if (end < 0) end = text.length
      docMore = text.charCodeAt(end - 1) === 44 /* , */
      const member = parseDocumentLine(text, at, docMore ? end - 1 : end)
      if (!member) return null
      docs.set(member[0], member[1])
      at = end + 1
    }
  }
}

const DOCUMENT_START = `${DOCUMENT_INDENT}"`

/** `      "id": {...}` between `start` and `end` (the comma excluded): the id (no escapes; others take the general path) and the document, checked. */
function parseDocumentLine(text: string, start: number, end: number): [string, Doc] | null {
  const idStart = start + DOCUMENT_START.length
  const quote = text.indexOf('"', idStart)
  if (quote < 0 || quote + 3 > end || text.charCodeAt(quote + 1) !== 58 /* : */ || text.charCodeAt(quote + 2) !== 32 /* space */) return null
  // A backslash or a control character would need JSON's unescaping: rare, left to JSON.parse of the whole file.
  for (let n = idStart; n < quote; n++) {
    const code = text.charCodeAt(n)
    if (code < 32 || code === 92) return null
  }
  const doc = parseJson(text.slice(quote + 3, end))
  // The key is the document's own id string: a slice of the file's text would keep the whole text alive.
  return isDoc(doc, text.slice(idStart, quote)) ? [doc.id, doc] : null
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
