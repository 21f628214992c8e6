// Prints the ten slowest test files of a vitest JSON report, so a slow suite shows where its time goes.
import { readFileSync } from 'node:fs'
import path from 'node:path'

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const files = (report.testResults ?? [])
  .map((result) => ({ file: path.relative(process.cwd(), result.name), seconds: (result.endTime - result.startTime) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10)
console.log('Slowest test files:')
for (const { file, seconds } of files) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`)
