import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Test files that take a minute or more in a full run whatever the machine
 * (a timed soak, kill -9 restarts, npm installs, fuzzing, the longest CLI
 * files), as .ci/run's "Slowest test files" lists them; the longest first.
 */
const LONG_RUNNING = [
  'test/soak/soak.test.ts',
  'test/durability/serve-crash.test.ts',
  'test/cli/install.test.ts',
  'test/fuzz/sim.test.ts',
  'test/fuzz/api.test.ts',
  'test/cli/invoices.test.ts',
  'test/cli/sessions.test.ts',
  'test/browser/dashboard.test.ts',
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
