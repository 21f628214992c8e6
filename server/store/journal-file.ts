import { createHash, type Hash } from 'node:crypto'
import { constants } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { JournalCoverage } from './snapshot-render.js'
import { StoreOpenError, type Doc, type DocumentCheck } from './types.js'
import { isDoc, isRecord, syncDirectory, tempFileOf, UNCHANGED } from './snapshot-file.js'

/**
 * How the journal is opened: write and create, never append (each line is
 * written at its offset, over the zeros of its extent: see
 * JOURNAL_EXTENT_BYTES), and O_DSYNC where the system has it, so that each
 * write is durable when it returns. That is fdatasync's guarantee (the data
 * and the metadata needed to read it back) with one round trip to the thread
 * pool per commit group instead of two, which measured about 20 % more
 * creates a second at 10 connections. `synced` false (a system without
 * O_DSYNC, or a test) leaves it out: each write is followed by fdatasync.
 */
export function journalOpenFlags(synced: boolean): number {
  const flags = constants.O_WRONLY | constants.O_CREAT
  return synced ? flags | constants.O_DSYNC : flags
}

/**
 * The journal's file grows a mebibyte of zeros at a time, written together
 * with the line that needs them, and the lines after it overwrite those
 * zeros. A durable write inside the file changes no metadata, while one that
 * makes the file longer must also commit its new size: on ext4 here the
 * first took 0.11 ms and the second 0.19 ms, and creates a second at 10
 * connections rose 8–25 % (docs/performance-history.md, "the journal's
 * extents"). Start-up reads the journal up to its last byte that is not
 * zero (journalContentOf); a line never ends in one.
 */
export const JOURNAL_EXTENT_BYTES = 1 << 20

/** The journal's lines: the file without the zeros of its last extent that no line has reached yet. */
export function journalContentOf(file: Buffer): Buffer {
  let end = file.length
  while (end > 0 && file[end - 1] === 0) end--
  return file.subarray(0, end)
}

export function journalFileOf(file: string): string {
  return `${file}.journal`
}

/** One change as the journal stores it: whole documents, so replaying it twice is harmless. */
export type JournalOp = ['put', string, string, Doc] | ['del', string, string]

/** How every journal line starts; its ops follow, then `]}` and the newline. */
export const LINE_HEAD = '{"v":1,"ops":['

/** The line of one commit group, built from ops serialized when they were made. */
export function journalText(ops: readonly string[]): string {
  return `${LINE_HEAD}${ops.join(',')}]}\n`
}

/**
 * The open journal: appends whole lines and knows how many bytes of it are
 * good, and their hash. A failed append may leave part of a line behind; the
 * next append cuts the file back first, so a later line never follows
 * garbage.
 */
export class JournalFile {
  private torn = false
  /** The journal is emptied on open, so it starts at zero. */
  private bytes = 0
  /** How long the file is: its lines, then zeros up to the end of their extent (JOURNAL_EXTENT_BYTES). */
  private extentEnd = 0
  /** Of the good bytes: kept up to date per line so a snapshot never hashes the whole journal. */
  private hash = createHash('sha256')
  /** Null only after a failed reopen (see dropPrefix): the next append opens the file again. */
  private handle: FileHandle | null

  /**
   * @param syncedWrites The handle was opened with O_DSYNC (see
   *   journalOpenFlags): a write returns only once its bytes are on disk, as
   *   write + fdatasync would, in one system call instead of two. Otherwise
   *   (a system without O_DSYNC) each append is followed by fdatasync.
   * @param reopen Opens the journal file again, as it was opened (after
   *   dropPrefix renamed a new file over it).
   */
  constructor(
    readonly path: string,
    handle: FileHandle,
    private readonly syncedWrites: boolean,
    private readonly reopen: () => Promise<FileHandle>,
  ) {
    this.handle = handle
  }

  get size(): number {
    return this.bytes
  }

  /** Resolves once the line is written and on disk (O_DSYNC write, or write + fdatasync). */
  async append(line: Buffer): Promise<void> {
    this.handle ??= await this.reopen()
    const handle = this.handle
    if (this.torn) await this.cutBack(handle)
    const end = this.bytes + line.length
    try {
      if (end <= this.extentEnd) await this.writeDurably(handle, line)
      else await this.writeWithNextExtent(handle, line, end)
    } catch (error) {
      this.torn = true
      throw error
    }
    this.bytes = end
    this.hash.update(line)
  }

  /**
   * The line and the zeros to the end of the extent it ends in. A disk
   * nearly full may have room for the line and not for the extent: then the
   * line alone, so a write is refused only when the line itself does not fit.
   */
  private async writeWithNextExtent(handle: FileHandle, line: Buffer, end: number): Promise<void> {
    const extentEnd = Math.ceil(end / JOURNAL_EXTENT_BYTES) * JOURNAL_EXTENT_BYTES
    const bytes = Buffer.alloc(extentEnd - this.bytes)
    line.copy(bytes)
    try {
      await this.writeDurably(handle, bytes)
      this.extentEnd = extentEnd
    } catch (error) {
      if (!OUT_OF_ROOM.has((error as NodeJS.ErrnoException).code ?? '')) throw error
      await this.cutBack(handle)
      await this.writeDurably(handle, line)
      this.extentEnd = end
    }
  }

  /** Writes `bytes` where the good bytes end, durably. */
  private async writeDurably(handle: FileHandle, bytes: Buffer): Promise<void> {
    for (let written = 0; written < bytes.length; ) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, this.bytes + written)
      written += bytesWritten
    }
    if (!this.syncedWrites) await handle.datasync()
  }

  /** Cuts off what a failed write may have left after the good bytes. */
  private async cutBack(handle: FileHandle): Promise<void> {
    await handle.truncate(this.bytes)
    this.extentEnd = this.bytes
    this.torn = false
  }

  /** The journal as it is, or as it will be once `line` is appended. */
  coverage(line?: Buffer): JournalCoverage {
    const hash = this.hash.copy()
    if (line) hash.update(line)
    return { bytes: this.bytes + (line?.length ?? 0), sha256: hash.digest('hex') }
  }

  /** Empties the journal once a snapshot holds everything in it; appends must not run meanwhile. */
  async clear(): Promise<void> {
    this.handle ??= await this.reopen()
    await this.handle.truncate(0)
    this.bytes = 0
    this.extentEnd = 0
    this.torn = false
    this.hash = createHash('sha256')
  }

  /**
   * Drops the first `prefix` bytes, which a durable snapshot holds, keeping
   * what was appended since (docs/storage.md, "Compaction"): the rest is
   * copied to `<journal>.tmp` while appends go on; then, with appends held
   * by `exclusive`, what came meanwhile is copied too, the copy is synced and
   * renamed over the journal (`renamed` is told), and appends continue in it. A crash before the
   * rename leaves the whole journal, whose prefix the snapshot's coverage
   * skips; after it, only lines the snapshot does not hold.
   */
  async dropPrefix(prefix: number, exclusive: (task: () => Promise<void>) => Promise<void>, renamed: () => void): Promise<void> {
    const temp = tempFileOf(this.path)
    await rm(temp, { force: true })
    const copy = await open(temp, 'wx', 0o600)
    let copyOpen = true
    const hash = createHash('sha256')
    try {
      let copied = await copyRange(this.path, copy, prefix, this.bytes, hash)
      await exclusive(async () => {
        copied = await copyRange(this.path, copy, copied, this.bytes, hash)
        await copy.datasync()
        copyOpen = false
        await copy.close()
        // Closed before the rename: Windows does not rename over an open file.
        const old = this.handle
        this.handle = null
        await old?.close()
        try {
          await rename(temp, this.path)
        } catch (error) {
          this.handle = await this.reopen()
          throw error
        }
        this.bytes = copied - prefix
        this.extentEnd = this.bytes
        this.hash = hash
        this.torn = false
        renamed()
        this.handle = await this.reopen()
        await syncDirectory(path.dirname(this.path))
      })
    } finally {
      if (copyOpen) await copy.close()
      await rm(temp, { force: true })
    }
  }

  async close(): Promise<void> {
    await this.handle?.close()
    this.handle = null
  }
}

/** Appends bytes [from, to) of `file` to `target`, feeding them to `hash`; answers `to`. */
async function copyRange(file: string, target: FileHandle, from: number, to: number, hash: Hash): Promise<number> {
  if (to <= from) return from
  const source = await open(file, 'r')
  try {
    const buffer = Buffer.allocUnsafe(Math.min(COPY_BYTES, to - from))
    for (let at = from; at < to; ) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, to - at), at)
      if (bytesRead === 0) throw new Error(`${file} is shorter than the ${to} bytes written to it`)
      const bytes = buffer.subarray(0, bytesRead)
      for (let written = 0; written < bytesRead; ) written += (await target.write(bytes, written, bytesRead - written)).bytesWritten
      hash.update(bytes)
      at += bytesRead
    }
  } finally {
    await source.close()
  }
  return to
}

const COPY_BYTES = 1 << 20

/** A write refused for want of room: the disk is full, the user's quota is used up, or the file is at its size limit. */
const OUT_OF_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EFBIG'])

/** The SHA-256 a JournalCoverage records. */
export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * Applies the journal's lines, in order, skipping the prefix the snapshot
 * says it already contains. A last line without its newline that does not
 * parse is a write torn by a crash: it was never acknowledged, so it is
 * dropped with a warning. Any other bad line refuses start-up, naming the
 * file and the line.
 */
export function replayJournal(
  journal: Buffer,
  covered: JournalCoverage | null,
  file: string,
  apply: (op: JournalOp) => void,
  warn: (message: string) => void,
  check?: DocumentCheck,
): void {
  const skipped = covered && covered.bytes <= journal.length && sha256(journal.subarray(0, covered.bytes)) === covered.sha256 ? covered.bytes : 0
  const linesSkipped = journal.subarray(0, skipped).toString('utf8').split('\n').length - 1
  const lines = journal.subarray(skipped).toString('utf8').split('\n')
  // After the last newline: empty for a complete journal, a partial line after a crash.
  const unterminated = lines.pop() ?? ''
  lines.forEach((line, index) => {
    const lineNumber = linesSkipped + index + 1
    applyLine(parseLine(line, file, lineNumber), file, lineNumber, apply, check)
  })
  if (unterminated === '') return
  const lineNumber = linesSkipped + lines.length + 1
  let entry: unknown
  try {
    entry = JSON.parse(unterminated)
  } catch {
    // A torn write and a file cut short another way look the same here: the warning says both.
    warn(
      `${file}: dropped an incomplete last line (${lineNumber}). A crash during a write leaves one, and that write was never acknowledged; ` +
        'a journal cut short another way (copied while it was written, truncated) has also lost the lines after it.',
    )
    return
  }
  applyLine(entry, file, lineNumber, apply, check)
}

function parseLine(line: string, file: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line)
  } catch (error) {
    throw new StoreOpenError(`${file} line ${lineNumber} is not valid JSON (${(error as Error).message}). ${UNCHANGED}`, file)
  }
}

function applyLine(entry: unknown, file: string, lineNumber: number, apply: (op: JournalOp) => void, check: DocumentCheck | undefined): void {
  if (!isRecord(entry)) throw new StoreOpenError(`${file} line ${lineNumber} is not a journal entry. ${UNCHANGED}`, file)
  if (entry.v !== 1) {
    throw new StoreOpenError(
      `${file} line ${lineNumber} has journal version ${JSON.stringify(entry.v)}; this bula reads version 1 only (a newer bula may have written it). ${UNCHANGED}`,
      file,
    )
  }
  if (!Array.isArray(entry.ops)) throw new StoreOpenError(`${file} line ${lineNumber} is not a journal entry (no "ops"). ${UNCHANGED}`, file)
  for (const op of entry.ops) {
    if (!isJournalOp(op)) throw new StoreOpenError(`${file} line ${lineNumber} has an operation that is not a valid put or del. ${UNCHANGED}`, file)
    const problem = op[0] === 'put' && check ? check(op[1], op[3]) : null
    if (problem !== null) {
      throw new StoreOpenError(`${file} line ${lineNumber}: collection "${op[1]}", document "${op[2]}" is damaged: ${problem} ${UNCHANGED}`, file)
    }
  }
  for (const op of entry.ops as JournalOp[]) apply(op)
}

function isJournalOp(op: unknown): op is JournalOp {
  if (!Array.isArray(op) || typeof op[1] !== 'string' || typeof op[2] !== 'string') return false
  if (op[0] === 'put') return op.length === 4 && isDoc(op[3], op[2])
  return op[0] === 'del' && op.length === 3
}
