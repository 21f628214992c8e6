import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A condition polled for (a delivery landing, a stream line) gets as long
    // as a busy machine needs; a broken one still fails, after 15 s.
    expect: { poll: { timeout: 15_000 } },
    // The JSON report is what .ci/run counts for its closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-report.json' },
  },
})
