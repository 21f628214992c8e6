// Prints "N passed, N failed[, N skipped]" from vitest's JSON report.
import { readFileSync } from 'node:fs'

const file = process.argv[2]
let report
try {
  report = JSON.parse(readFileSync(file, 'utf8'))
} catch (error) {
  console.log(`no test report at ${file}: ${error.message}`)
  console.log('0 passed, 1 failed')
  process.exit(1)
}
const passed = report.numPassedTests ?? 0
// A file that fails to load has no tests of its own but must count as a failure.
const failedSuites = (report.testResults ?? []).filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length
const failed = (report.numFailedTests ?? 0) + failedSuites
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
