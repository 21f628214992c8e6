import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Test files that take 20 s or more in a full run whatever the machine (a
 * timed soak, kill -9 restarts, npm installs, fuzzing, 10,000 creates, the
 * CLI files), the longest first: durations from a fresh clone's `npm test`
 * (26 November, load average 7, fuzz files after their fixture reuse). A
 * long file that started late set the end of the run: in that run the
 * rate-limit and import-crash files, not listed then, started in the last
 * minute. Refresh from the JSON report (test-artifacts/vitest-report.json)
 * when files change a lot; .ci/run prints the ten slowest.
 */
const LONG_RUNNING = [
  'test/durability/serve-crash.test.ts',
  'test/soak/soak.test.ts',
  'test/fuzz/sim.test.ts',
  'test/fuzz/api.test.ts',
  'test/cli/install.test.ts',
  'test/cli/exec.test.ts',
  'test/cli/invoices.test.ts',
  'test/cli/listen.test.ts',
  'test/browser/dashboard.test.ts',
  'test/cli/sessions.test.ts',
  'test/cli/conformance.test.ts',
  'test/http/rate-limits.test.ts',
  'test/store/crash.test.ts',
  'test/cli/init-receiver.test.ts',
  'test/cli/webhooks-check.test.ts',
  'test/durability/import-crash.test.ts',
  'test/cli/basics.test.ts',
  'test/cli/events.test.ts',
  'test/cli/trigger.test.ts',
  'test/cli/faults.test.ts',
  'test/cli/fixtures.test.ts',
  'test/cli/payouts.test.ts',
  'test/durability/edges.test.ts',
]

/**
 * Starts the long files first when vitest has no timings of its own yet (a
 * fresh clone, every CI run). vitest then falls back to the largest files
 * first, which put the two fuzz files last: they ran on alone for a minute
 * after the other workers were done. Once vitest has timed every file it
 * orders them itself, longest first.
 */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    if (files.every((file) => this.ctx.cache.getTestSpecificationResult(file))) return sorted
    const rank = (file: TestSpecification): number => {
      const index = LONG_RUNNING.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join('/'))
      return index === -1 ? LONG_RUNNING.length : index
    }
    // Array sort is stable: the other files keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
