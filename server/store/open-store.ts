import { Low } from 'lowdb'
import { closeSync, constants } from 'node:fs'
import { mkdir, open, readFile, realpath, rm, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { makePrivate } from '../../src/private-file.js'
import { BulaStore } from './bula-store.js'
import { DocumentState, type LoadedSnapshot } from './document-state.js'
import { errorCode, messageOf } from './error-info.js'
import { acquireLock, type FileLock } from './file-lock.js'
import { JournalFile, journalContentOf, journalFileOf, journalOpenFlags, replayJournal, sha256 } from './journal-file.js'
import { JournalWriter } from './journal-writer.js'
import { checkDocuments, coverageOf, DurableTextFile, parseSnapshot, syncDirectory, tempFileOf, type SnapshotContent } from './snapshot-file.js'
import type { SnapshotSource } from './snapshot-render.js'
import { StoreOpenError, type IndexSpec, type OpenedStore, type OpenStoreOptions, type Schema } from './types.js'

/** The least journal size that triggers compaction by default; past 8 MiB of snapshot, the snapshot's own size is the threshold. */
export const DEFAULT_JOURNAL_THRESHOLD_BYTES = 8 * 1024 * 1024

/**
 * Whether lazy collections may stay in the snapshot file until read: the
 * store keeps that file open, and Windows does not let a new snapshot be
 * renamed over an open file, so there every document is parsed at start-up.
 */
const LAZY_SUPPORTED = process.platform !== 'win32'

/** Low's data when no snapshot file exists, and between writes. */
const NO_SNAPSHOT: SnapshotContent = Object.freeze({ fd: -1, size: 0, bytes: null })

/** For tests only, never for production: lets a test make the journal's disk fail on demand. */
export interface StoreTestHooks {
  /** Replaces the journal's open file handle, e.g. with one whose writes fail (with O_DSYNC a write is also the sync). */
  journalHandle?: (handle: FileHandle) => FileHandle
  /** Opens the journal as on a system without O_DSYNC: plain appends, each followed by fdatasync. */
  withoutDsync?: boolean
}

/**
 * Opens the store: memory only without `file`; otherwise takes the lock,
 * loads the snapshot, replays the journal, and writes a fresh snapshot.
 * docs/storage.md describes the files and the guarantees.
 */
export async function openStore<S extends Schema>(options: OpenStoreOptions<S>, hooks: StoreTestHooks = {}): Promise<OpenedStore<S>> {
  // Key functions take the collection's own document type; inside, every document is a Doc.
  const state = new DocumentState(options.collections, options.indexes as unknown as IndexSpec<Schema> | undefined, options.lazy)
  if (options.file === undefined) return { store: new BulaStore<S>(state, null, null), fresh: true }

  // As given, for what the user reads (the ready line, messages); the file's own path for what touches it.
  const given = path.resolve(options.file)
  try {
    await createFolder(path.dirname(given))
  } catch (error) {
    throw new StoreOpenError(`Cannot create the folder of ${given}: ${messageOf(error)}`, given)
  }
  const file = await ownPath(given).catch((error: unknown) => {
    throw new StoreOpenError(`Cannot open ${given}: ${messageOf(error)}`, given)
  })
  await refuseIfNotAFile(file, given)
  const lock = await acquireLock(file)
  try {
    const { writer, fresh } = await openFiles(file, state, lock, options, hooks)
    return { store: new BulaStore<S>(state, writer, given), fresh }
  } catch (error) {
    await lock.release()
    throw error instanceof StoreOpenError ? error : new StoreOpenError(`Cannot open ${file}: ${messageOf(error)}`, file)
  }
}

/**
 * The data file's own path, through any symlink to it or to its folder: the
 * lock, journal and snapshot are named after it, so two names for one file
 * take one lock (docs/storage.md), and a snapshot's rename replaces the
 * file, not a link to it.
 */
async function ownPath(file: string): Promise<string> {
  try {
    return await realpath(file)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
    return path.join(await realpath(path.dirname(file)), path.basename(file))
  }
}

/**
 * A data file that exists must be a regular file. Snapshots are renamed over
 * it, so `--data /dev/null` run as root replaced the system's /dev/null with
 * a data file; a FIFO blocked start-up's read forever, holding the lock.
 */
async function refuseIfNotAFile(file: string, given: string): Promise<void> {
  const found = await stat(file).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined
    throw new StoreOpenError(`Cannot open ${given}: ${messageOf(error)}`, given)
  })
  if (!found || found.isFile()) return
  const kind = found.isDirectory() ? 'a folder' : found.isFIFO() ? 'a named pipe' : found.isSocket() ? 'a socket' : 'a device'
  throw new StoreOpenError(`${given} is ${kind}, not a data file. Give the path of a file (a new one is created).`, given)
}

async function openFiles<S extends Schema>(
  file: string,
  state: DocumentState,
  lock: FileLock,
  options: OpenStoreOptions<S>,
  hooks: StoreTestHooks,
): Promise<{ writer: JournalWriter; fresh: boolean }> {
  const warn = options.warn ?? ((message: string) => console.warn(message))
  const snapshot = new Low<SnapshotContent | SnapshotSource>(new DurableTextFile(file), NO_SNAPSHOT)
  await snapshot.read()
  const content = snapshot.data === NO_SNAPSHOT ? null : (snapshot.data as SnapshotContent)
  // Low would otherwise hold bytes read ahead for as long as the store is open.
  snapshot.data = NO_SNAPSHOT
  let data: LoadedSnapshot | null = null
  try {
    // An empty data file reads like a missing one: it holds no data either.
    if (content && content.size > 0) data = parseSnapshot(content, file, LAZY_SUPPORTED ? state.lazyNames() : undefined)
  } finally {
    // Kept open only while documents are left unparsed in it.
    if (content && !data?.deferred) closeSync(content.fd)
  }
  if (data && !data.intact && options.checkDocument) checkDocuments(data, file, options.checkDocument)
  if (data) state.load(data, file, content!.fd)
  const snapshotLength = content?.size ?? 0
  const journalPath = journalFileOf(file)
  const existingJournal = await readIfExists(journalPath)
  const journalContent = journalContentOf(existingJournal ?? Buffer.alloc(0))
  // bula writes a snapshot before the first line of any journal, so changes without one mean it was lost: replayed
  // onto nothing, they made objects of merchants that no longer exist, which the next export could not import.
  if (!data && journalContent.length > 0) {
    throw new StoreOpenError(
      `${journalPath} holds changes to ${file}, which is ${content ? 'empty' : 'missing'}: the snapshot they apply to was lost. ` +
        `Put it back (a backup or an export), or move ${journalPath} away to start with no data.`,
      file,
    )
  }
  if (journalContent.length > 0) {
    replayJournal(
      journalContent,
      data && coverageOf(data),
      journalPath,
      (op) => (op[0] === 'put' ? state.replayPut(op[1], op[3]) : state.replayDelete(op[1], op[2])),
      warn,
      options.checkDocument,
    )
  }

  // Everything was read and accepted: only from here on do files change.
  const writeSnapshot = async (renderer: SnapshotSource): Promise<void> => {
    snapshot.data = renderer
    try {
      await snapshot.write()
    } finally {
      snapshot.data = NO_SNAPSHOT
    }
    state.adopt(file, renderer)
  }
  let snapshotBytes = snapshotLength
  if (!data || journalContent.length > 0) {
    const renderer = state.freeze({ bytes: journalContent.length, sha256: sha256(journalContent) })
    await writeSnapshot(renderer)
    snapshotBytes = renderer.bytes
  }
  const synced = !hooks.withoutDsync && constants.O_DSYNC !== undefined
  const flags = journalOpenFlags(synced)
  const openJournal = async (): Promise<FileHandle> => {
    const handle = await open(journalPath, flags, 0o600)
    return hooks.journalHandle?.(handle) ?? handle
  }
  const handle = await openJournal()
  try {
    // A new journal's name must survive a crash, or the lines written to it would vanish with it.
    if (existingJournal === null) await syncDirectory(path.dirname(file))
    // The snapshot just written holds all of it (and the rest was zeros).
    if (existingJournal !== null && existingJournal.length > 0) await handle.truncate(0)
    // The data may hold API key hashes and customer details: files made by an older bula or by hand are tightened.
    await makePrivate(file)
    await makePrivate(journalPath)
    await rm(tempFileOf(file), { force: true })
    await rm(tempFileOf(journalPath), { force: true })
  } catch (error) {
    await handle.close()
    throw error
  }
  const journal = new JournalFile(journalPath, handle, synced, openJournal)
  state.readJournal(journalPath)
  const writer = new JournalWriter({
    journal,
    freeze: (covered, inBackground) => state.freeze(covered, inBackground),
    placed: (placements) => state.placed(placements),
    journalSwapped: (prefix) => state.journalSwapped(journalPath, prefix),
    writeSnapshot,
    snapshotFile: file,
    thresholdBytes: thresholdOf(options.journalThresholdBytes),
    snapshotBytes,
    warn,
    lock,
  })
  return { writer, fresh: !data }
}

/**
 * A fixed threshold when the caller gives one. Otherwise the journal may grow
 * as large as the snapshot: a compaction rewrites the whole state, so with a
 * fixed threshold its cost per commit would grow with the data; this way each
 * byte of journal pays for at most one byte of snapshot, whatever is stored.
 */
function thresholdOf(fixedBytes: number | undefined): (snapshotBytes: number) => number {
  if (fixedBytes !== undefined) return () => fixedBytes
  return (snapshotBytes) => Math.max(DEFAULT_JOURNAL_THRESHOLD_BYTES, snapshotBytes)
}

/**
 * `mkdir -p` with mode 0700, one level at a time. Node's recursive mkdir
 * loops forever where the system refuses a folder with ENOENT although its
 * parent exists (procfs does, under /proc); here each level is tried again
 * only once, after its parent was made.
 */
async function createFolder(folder: string, parentMade = false): Promise<void> {
  try {
    await mkdir(folder, { mode: 0o700 })
  } catch (error) {
    const code = errorCode(error)
    if (code === 'EEXIST') {
      if ((await stat(folder)).isDirectory()) return
      throw new Error(`${folder} is a file, not a folder`, { cause: error })
    }
    const parent = path.dirname(folder)
    if (code !== 'ENOENT' || parentMade || parent === folder) throw error
    await createFolder(parent)
    await createFolder(folder, true)
  }
}

async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    // Node's message for a folder in the file's place ("EISDIR: illegal operation on a directory, read") names no path.
    throw new StoreOpenError(`Cannot read ${file}: ${messageOf(error)}`, file)
  }
}

