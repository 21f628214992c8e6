// Run by crash.test.ts in its own process (through register-ts.mjs), then
// killed with SIGKILL: 8 concurrent loops put two documents per commit and
// print each pair's id once its commit has resolved, i.e. once it is
// acknowledged. Arguments: data file, run name, journal threshold in bytes,
// and optionally how many documents to put first (in commits of 1,000, each
// acknowledged as `preloaded <run>-p<n>` once durable), so that a compaction
// has enough to write for a kill to land inside it; `ready` follows them.
import { openStore } from '../../server/store/index.js'
import { CRASH_INDEXES, type CrashSchema } from './crash-schema.js'

const [file, run, threshold, preload = '0'] = process.argv.slice(2)
if (!file || !run || !threshold) throw new Error('usage: crash-child.ts <data file> <run name> <journal threshold bytes> [documents to preload]')
const { store } = await openStore<CrashSchema>({ file, collections: ['items'], indexes: CRASH_INDEXES, journalThresholdBytes: Number(threshold) })

for (let n = 0; n < Number(preload); n += 1_000) {
  for (let k = n; k < Math.min(n + 1_000, Number(preload)); k++) store.put('items', { id: `${run}-p${k}`, group: `${run}-preload`, n: k, pad: 'p'.repeat(120) })
  await store.commit()
  process.stdout.write(`preloaded ${run}-p${Math.min(n + 1_000, Number(preload)) - 1}\n`)
}
process.stdout.write('ready\n')

await Promise.all(
  Array.from({ length: 8 }, async (_, worker) => {
    for (let n = 0; ; n++) {
      const id = `${run}-${worker}-${n}`
      const group = `${run}-${worker}`
      store.put('items', { id: `${id}-a`, group, n, pad: 'x'.repeat(80) })
      store.put('items', { id: `${id}-b`, group, n, pad: 'y'.repeat(80) })
      await store.commit()
      process.stdout.write(`${id}\n`)
    }
  }),
)
