// `npm run conformance:update`: runs the conformance suite against a fresh
// simulator (from dist/, so build first), rewrites the recordings in
// test/conformance/snapshots/ and docs/conformance.md from that run. Review
// the diff: every change in it is a change of the simulator's behaviour.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startSimulator } from '../dist/server/testing.js'
import { renderCoverageDoc, runConformance } from '../dist/src/conformance/index.js'

const root = path.resolve(import.meta.dirname, '..')
const snapshots = path.join(root, 'test/conformance/snapshots')
const fresh = await mkdtemp(path.join(tmpdir(), 'bula-conformance-'))
const sim = await startSimulator()
try {
  const result = await runConformance({ baseUrl: sim.baseUrl, record: fresh })
  const { passed, failed, skipped } = result.summary
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped in ${result.durationMs} ms`)
  for (const item of result.cases.filter((each) => each.outcome !== 'pass')) console.log(`  ${item.outcome} ${item.id}: ${item.reason}`)
  // Replaced whole, so the recording of a removed case goes too.
  await rm(snapshots, { recursive: true, force: true })
  await cp(fresh, snapshots, { recursive: true })
  await writeFile(path.join(root, 'docs/conformance.md'), renderCoverageDoc(result))
  console.log(`Wrote ${path.relative(root, snapshots)}/ and docs/conformance.md`)
  if (failed > 0) process.exitCode = 1
} finally {
  await sim.close()
  await rm(fresh, { recursive: true, force: true })
}
