import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import LongFilesFirst from './test/setup/sequencer.js'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most test files spend their time waiting on other processes (a bula
    // serve, the CLI, Chromium), so two files per core keep the CPUs busy;
    // vitest's default (cores - 1) ran one file at a time on a 2-core
    // machine. docs/performance.md, "The test suite", has the measurements.
    maxWorkers: Math.max(2, availableParallelism() * 2),
    // A worker runs file after file with its module cache kept: the
    // simulator's modules load once per worker instead of once per file (a
    // fifth less CPU for the suite). Safe because no module keeps state of
    // its own: every server, store and client is an instance a test makes,
    // and each file's helpers clean up after it.
    isolate: false,
    setupFiles: ['test/setup/conformance.ts'],
    sequence: { sequencer: LongFilesFirst },
    // Room for a test of a dozen CLI starts in a row on a loaded 2-core machine (about 20 s seen on CI, four files at once).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A condition polled for (a delivery landing, a stream line) gets as long
    // as a busy machine needs; a broken one still fails, after 15 s.
    expect: { poll: { timeout: 15_000 } },
    // The JSON report is what .ci/run counts for its closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-report.json' },
  },
})
