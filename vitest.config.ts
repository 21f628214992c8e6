import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report is what .ci/run counts for its closing "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-report.json' },
  },
})
