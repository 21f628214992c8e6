// Commit cost by hand, not in CI (timings vary with the disk):
//   node --import ./test/store/register-ts.mjs test/store/commit-bench.ts
// For each preload size: open time of the reopened store, 2,000 sequential
// commits of one small put, and 2,000 commits from 8 concurrent committers.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { openStore, type Store } from '../../server/store/index.js'

interface Item {
  id: string
  owner: string
  amount: number
  note: string
}
type Schema = { items: Item }

const COMMITS = 2_000
const COMMITTERS = 8

const item = (id: string): Item => ({ id, owner: `owner_${id.length % 50}`, amount: 1234, note: 'a small document of about a hundred bytes' })
const open = (file: string) => openStore<Schema>({ file, collections: ['items'], indexes: { groups: { items: { byOwner: (doc) => doc.owner } } } })

function summary(label: string, micros: number[]): string {
  const sorted = [...micros].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0)
  const total = micros.reduce((sum, value) => sum + value, 0)
  return `${label}: mean ${(total / micros.length).toFixed(0)} µs, p50 ${at(0.5)} µs, p99 ${at(0.99)} µs`
}

async function sequential(store: Store<Schema>): Promise<string> {
  const micros: number[] = []
  for (let n = 0; n < COMMITS; n++) {
    const start = performance.now()
    store.put('items', item(`seq_${n}`))
    await store.commit()
    micros.push((performance.now() - start) * 1000)
  }
  return summary(`${COMMITS} sequential commits`, micros)
}

async function concurrent(store: Store<Schema>, journal: string): Promise<string> {
  const micros: number[] = []
  const start = performance.now()
  await Promise.all(
    Array.from({ length: COMMITTERS }, async (_, committer) => {
      for (let n = 0; n < COMMITS / COMMITTERS; n++) {
        const begin = performance.now()
        store.put('items', item(`conc_${committer}_${n}`))
        await store.commit()
        micros.push((performance.now() - begin) * 1000)
      }
    }),
  )
  const seconds = (performance.now() - start) / 1000
  const writes = (await readFile(journal, 'utf8')).split('\n').length - 1
  return `${summary(`${COMMITS} commits from ${COMMITTERS} committers`, micros)}; ${(COMMITS / seconds).toFixed(0)} commits/s in ${writes} journal writes`
}

for (const preload of [0, 10_000, 100_000]) {
  const folder = await mkdtemp(path.join(tmpdir(), 'bula-bench-'))
  const file = path.join(folder, 'data.json')
  const seeded = await open(file)
  for (let n = 0; n < preload; n++) seeded.store.put('items', item(`pre_${n}`))
  await seeded.store.close()

  const start = performance.now()
  const { store } = await open(file)
  const openMs = performance.now() - start
  console.log(`${preload} documents preloaded (open ${openMs.toFixed(0)} ms)`)
  console.log(`  ${await sequential(store)}`)
  // Starts from an empty journal so its line count is the number of writes.
  await store.close()
  const reopened = await open(file)
  console.log(`  ${await concurrent(reopened.store, `${file}.journal`)}`)
  await reopened.store.close()
  await rm(folder, { recursive: true })
}
