// Prints "N passed, N failed[, N skipped]" summed over vitest JSON reports.
// Each failure is named first, with the start of its message: CI keeps only
// the end of a long log, where vitest's own account of it may be cut off.
import { readFileSync } from 'node:fs'
import path from 'node:path'

let passed = 0
let failed = 0
let skipped = 0
const failures = []
const firstLines = (text, count = 6) => String(text ?? '').split('\n').slice(0, count).map((line) => `      ${line}`).join('\n')
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
  failed += report.numFailedTests ?? 0
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
  for (const result of report.testResults ?? []) {
    const where = `${path.basename(file)}: ${path.relative(process.cwd(), result.name)}`
    // A file that fails to load has no tests of its own but must count as a failure.
    if (result.status === 'failed' && result.assertionResults.length === 0) {
      failed++
      failures.push(`  ${where} did not load\n${firstLines(result.message)}`)
    }
    for (const test of result.assertionResults.filter((t) => t.status === 'failed')) {
      failures.push(`  ${where} > ${test.fullName}\n${firstLines(test.failureMessages?.[0])}`)
    }
  }
}
if (failures.length > 0) console.log(`Failed:\n${failures.join('\n')}`)
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
