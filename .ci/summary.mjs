// Prints "N passed, N failed[, N skipped]" summed over vitest JSON reports.
import { readFileSync } from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0
for (const file of process.argv.slice(2)) {
  let report
  try {
    report = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    console.log(`no test report at ${file}: ${error.message}`)
    failed += 1
    continue
  }
  passed += report.numPassedTests ?? 0
  // A file that fails to load has no tests of its own but must count as a failure.
  const failedSuites = (report.testResults ?? []).filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length
  failed += (report.numFailedTests ?? 0) + failedSuites
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
