import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../server/store/index.js'
import { CRASH_INDEXES, type CrashSchema } from './crash-schema.js'
import { tempDataFile } from './temp-store.js'

const REGISTER_TS = path.join(import.meta.dirname, 'register-ts.mjs')
const CHILD = path.join(import.meta.dirname, 'crash-child.ts')
/** Small, so the kills also land in snapshot writes and truncations. */
const THRESHOLD_BYTES = 16 * 1024

/** Runs crash-child.ts, kills it with SIGKILL once `killAfter` commits were acknowledged, and returns every acknowledged id. */
async function runAndKill(file: string, run: string, killAfter: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', REGISTER_TS, CHILD, file, run, String(THRESHOLD_BYTES)], { stdio: ['ignore', 'pipe', 'pipe'] })
  const acknowledged: string[] = []
  let partialLine = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partialLine + chunk.toString()).split('\n')
    // A line cut off by the kill was printed only in part: its id counts only when complete.
    partialLine = lines.pop() ?? ''
    acknowledged.push(...lines)
    if (acknowledged.length >= killAfter) child.kill('SIGKILL')
  })
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]
  if (signal !== 'SIGKILL') throw new Error(`crash-child.ts exited by itself (code ${code}): ${stderr}`)
  return acknowledged
}

describe('crash safety', () => {
  it('keeps every acknowledged commit, whole, when the process is killed at any moment', async () => {
    const file = await tempDataFile()
    const runs: string[] = []
    for (const killAfter of [1, 150, 700, 2_500]) {
      const run = `r${runs.length}`
      runs.push(run)
      const acknowledged = await runAndKill(file, run, killAfter)
      expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter)

      const warnings: string[] = []
      const { store } = await openStore<CrashSchema>({ file, collections: ['items'], indexes: CRASH_INDEXES, warn: (message) => warnings.push(message) })
      try {
        const missing = acknowledged.filter((id) => !store.get('items', `${id}-a`) || !store.get('items', `${id}-b`))
        expect(missing).toEqual([])
        // A commit is all or nothing: no half of a pair without the other.
        for (const item of store.values('items')) {
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
  })
})
