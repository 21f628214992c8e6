import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { watch } from 'node:fs'
import { access } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../server/store/index.js'
import { CRASH_INDEXES, type CrashSchema } from './crash-schema.js'
import { tempDataFile } from './temp-store.js'

const REGISTER_TS = path.join(import.meta.dirname, 'register-ts.mjs')
const CHILD = path.join(import.meta.dirname, 'crash-child.ts')
/** Small, so the kills also land in snapshot writes and truncations. */
const THRESHOLD_BYTES = 16 * 1024

interface Killed {
  /** Ids of the pairs whose commit was acknowledged. */
  acknowledged: string[]
  /** The last preloaded document acknowledged, if any. */
  lastPreloaded: string | null
}

/**
 * Runs crash-child.ts and kills it with SIGKILL: once `killAfter` commits
 * were acknowledged, or (with `killOn`) the moment that file appears in the
 * data folder after the child is ready, i.e. while a compaction writes it.
 */
async function runAndKill(
  file: string,
  run: string,
  options: { killAfter?: number; killOn?: string; threshold?: number; preload?: number },
): Promise<Killed> {
  const args = [file, run, String(options.threshold ?? THRESHOLD_BYTES), String(options.preload ?? 0)]
  const child = spawn(process.execPath, ['--import', REGISTER_TS, CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const killed: Killed = { acknowledged: [], lastPreloaded: null }
  let partialLine = ''
  let stderr = ''
  let watcher: ReturnType<typeof watch> | undefined
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partialLine + chunk.toString()).split('\n')
    // A line cut off by the kill was printed only in part: its id counts only when complete.
    partialLine = lines.pop() ?? ''
    for (const line of lines) {
      if (line.startsWith('preloaded ')) killed.lastPreloaded = line.slice('preloaded '.length)
      else if (line === 'ready' && options.killOn) {
        const target = options.killOn
        watcher = watch(path.dirname(file), (_event, name) => {
          if (name === target) child.kill('SIGKILL')
        })
      } else if (line !== 'ready') killed.acknowledged.push(line)
    }
    if (options.killAfter !== undefined && killed.acknowledged.length >= options.killAfter) child.kill('SIGKILL')
  })
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]
  watcher?.close()
  if (signal !== 'SIGKILL') throw new Error(`crash-child.ts exited by itself (code ${code}): ${stderr}`)
  return killed
}

/** Opens the data file and checks every run so far: each acknowledged pair is there, whole and in group order. */
async function expectAllAcknowledged(file: string, runs: string[], killed: Killed): Promise<void> {
  const warnings: string[] = []
  const { store } = await openStore<CrashSchema>({ file, collections: ['items'], indexes: CRASH_INDEXES, warn: (message) => warnings.push(message) })
  try {
    const missing = killed.acknowledged.filter((id) => !store.get('items', `${id}-a`) || !store.get('items', `${id}-b`))
    expect(missing).toEqual([])
    if (killed.lastPreloaded !== null) expect(store.get('items', killed.lastPreloaded)).toBeDefined()
    // A commit is all or nothing: no half of a pair without the other.
    for (const item of store.values('items')) {
      if (item.group.endsWith('-preload')) continue
      const pair = item.id.endsWith('-a') ? `${item.id.slice(0, -2)}-b` : `${item.id.slice(0, -2)}-a`
      expect(store.get('items', pair), `the pair of ${item.id}`).toBeDefined()
    }
    // Each loop committed in sequence, so its group is n = 0, 1, 2, ... in order, in every run so far.
    for (const earlier of runs) {
      for (let loop = 0; loop < 8; loop++) {
        const ids = store.group('items', 'byLoop', `${earlier}-${loop}`)
        const expected = Array.from({ length: ids.length / 2 }, (_, n) => [`${earlier}-${loop}-${n}-a`, `${earlier}-${loop}-${n}-b`]).flat()
        expect(ids).toEqual(expected)
      }
    }
    for (const warning of warnings) expect(warning).toMatch(/dropped an incomplete last line/)
  } finally {
    await store.close()
  }
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  )

describe('crash safety', () => {
  it('keeps every acknowledged commit, whole, when the process is killed at any moment', async () => {
    const file = await tempDataFile()
    const runs: string[] = []
    for (const killAfter of [1, 150, 700, 2_500]) {
      const run = `r${runs.length}`
      runs.push(run)
      const killed = await runAndKill(file, run, { killAfter })
      expect(killed.acknowledged.length).toBeGreaterThanOrEqual(killAfter)
      await expectAllAcknowledged(file, runs, killed)
    }
  })

  // A compaction writes the snapshot to data.json.tmp while commits go on, then copies the journal's tail to
  // data.json.journal.tmp and renames it over the journal (docs/storage.md, "Compaction"). A kill that leaves
  // the temp file behind landed inside that step.
  for (const [step, temp] of [
    ['writes its snapshot', 'data.json.tmp'],
    ['swaps the journal', 'data.json.journal.tmp'],
  ] as const) {
    it(`keeps every acknowledged commit when the process is killed while a compaction ${step}`, async () => {
      const file = await tempDataFile()
      const runs: string[] = []
      let landed = false
      for (let attempt = 0; attempt < 8 && !landed; attempt++) {
        const run = `c${attempt}`
        runs.push(run)
        // 20,000 preloaded documents make a snapshot of about 4 MB; a 256 KiB journal starts a compaction every ~1,000 commits.
        const killed = await runAndKill(file, run, { killOn: temp, threshold: 256 * 1024, preload: 20_000 })
        landed = await exists(path.join(path.dirname(file), temp))
        await expectAllAcknowledged(file, runs, killed)
      }
      expect(landed, `a kill landed while ${temp} was being written`).toBe(true)
    })
  }
})
