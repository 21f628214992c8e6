import { readFileSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { errorCode, messageOf } from './error-info.js'
import { StoreOpenError } from './types.js'

export interface FileLock {
  /** Removes the lock file; never throws (a lock left behind is stale and taken over). */
  release(): Promise<void>
}

/**
 * Data files this process holds. Their lock files carry our own pid, so the
 * pid alone cannot tell "open here" from "left by an earlier process that had
 * the same pid" (a container restarting bula as pid 1).
 */
const heldHere = new Set<string>()

/** Attempts to replace a stale lock before giving up: another process may be racing for it. */
const TAKEOVER_ATTEMPTS = 3

/**
 * Takes `<file>.lock`: created exclusively, holding our pid. A lock whose
 * process is still running refuses the open; a lock left by a process that
 * is gone is stale and taken over.
 */
export async function acquireLock(file: string): Promise<FileLock> {
  if (heldHere.has(file)) throw new StoreOpenError(`${file} is already open in this process.`, file)
  heldHere.add(file)
  const lockFile = `${file}.lock`
  try {
    await createLockFile(file, lockFile)
  } catch (error) {
    heldHere.delete(file)
    throw error
  }
  return {
    release: async () => {
      heldHere.delete(file)
      await rm(lockFile, { force: true }).catch(() => undefined)
    },
  }
}

async function createLockFile(file: string, lockFile: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await writeFile(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      return
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw new StoreOpenError(`Cannot create the lock file ${lockFile}: ${messageOf(error)}`, file)
    }
    const owner = await readOwner(file, lockFile)
    if (owner !== null && owner !== process.pid && isRunning(owner)) {
      throw new StoreOpenError(
        `${file} is in use by another bula process (pid ${owner}). Stop that process first; if pid ${owner} is not bula, delete ${lockFile}.`,
        file,
      )
    }
    if (attempt === TAKEOVER_ATTEMPTS) throw new StoreOpenError(`Cannot take the lock file ${lockFile}: it keeps coming back.`, file)
    await rm(lockFile, { force: true })
  }
}

/** The pid in the lock file, or null when there is none (gone already, or left empty by a crash). */
async function readOwner(file: string, lockFile: string): Promise<number | null> {
  let text: string
  try {
    text = await readFile(lockFile, 'utf8')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    throw new StoreOpenError(`Cannot read the lock file ${lockFile}: ${messageOf(error)}`, file)
  }
  const pid = Number(text.trim())
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return errorCode(error) === 'EPERM'
  }
  return !isZombie(pid)
}

/**
 * A process that was killed but not yet reaped by its parent still answers
 * kill(pid, 0), yet it will never remove its lock: it holds nothing. A
 * parent that never reaps is common (PID 1 in a container without an init),
 * and then `kill -9` left a lock that refused every later start. Linux shows
 * the state in /proc; elsewhere such a process counts as running.
 */
function isZombie(pid: number): boolean {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return false
  }
  // `pid (name) state …`: the state follows the last `)`, as a name may hold one.
  return /^ [ZX]/.test(stat.slice(stat.lastIndexOf(')') + 1))
}
