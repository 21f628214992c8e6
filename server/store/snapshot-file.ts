import type { Adapter } from 'lowdb'
import { open, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import type { JournalCoverage, SnapshotData } from './document-state.js'
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
export class DurableTextFile implements Adapter<string> {
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

  async write(text: string): Promise<void> {
    const temp = tempFileOf(this.file)
    // A temp file left by a crash may have any mode; a new one gets 0600 from the start.
    await rm(temp, { force: true })
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(text)
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

/** Parses and checks the snapshot file's text; refusals name the file and leave it alone. */
export function parseSnapshot(text: string, file: string): SnapshotData {
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

/** The snapshot's journal coverage; anything malformed means none, so the whole journal is replayed (always safe). */
export function coverageOf(data: SnapshotData): JournalCoverage | null {
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
