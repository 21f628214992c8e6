import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CASES, recordingPath, renderCoverageDoc, runConformance, type ConformanceResult } from '../../src/conformance/index.js'
import { useTestServer } from '../helpers/http.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SNAPSHOTS = path.join(ROOT, 'test/conformance/snapshots')
const UPDATE = 'run `npm run conformance:update` and review the diff'

/** Every recording file under the folder. */
const recordings = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? recordings(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))

describe('bula conformance against a fresh simulator', () => {
  const server = useTestServer()
  let result: ConformanceResult

  beforeAll(async () => {
    result = await runConformance({ baseUrl: server().baseUrl, compare: SNAPSHOTS })
  })

  it('passes every case and skips none: the simulator has /_sim, a receiver on loopback and both tiers', () => {
    expect(result.sim).toBe(true)
    expect(result.cases.filter((item) => item.outcome !== 'pass').map((item) => `${item.outcome} ${item.id}: ${item.reason}`)).toEqual([])
    expect(result.summary.total).toBe(CASES.length)
  })

  it(`answers exactly as recorded in test/conformance/snapshots (${UPDATE})`, () => {
    expect(result.differences?.map((difference) => `${difference.case}: ${difference.message}`)).toEqual([])
  })

  it('keeps no recording of a case that is gone', () => {
    const expected = new Set(CASES.map((item) => recordingPath(SNAPSHOTS, item.id)))
    expect(recordings(SNAPSHOTS).filter((file) => !expected.has(file)).map((file) => path.relative(ROOT, file)), UPDATE).toEqual([])
  })

  it(`docs/conformance.md is current (${UPDATE})`, () => {
    expect(readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8')).toBe(renderCoverageDoc(result))
  })
})
