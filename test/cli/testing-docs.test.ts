import { execa } from 'execa'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 14: docs/testing-and-ci.md never showed payCheckoutSession and its required outcome. The example
// there now does, and this test runs it as written, against the built package (`bula-tools` and
// `bula-tools/testing` resolve to this checkout by the package's own name), so it cannot drift.

const ROOT = path.resolve(import.meta.dirname, '../..')

function testingExample(): string {
  const page = readFileSync(path.join(ROOT, 'docs', 'testing-and-ci.md'), 'utf8')
  const section = page.slice(page.indexOf('## `bula-tools/testing`'))
  const block = /```ts\n([\s\S]*?)```/.exec(section)
  if (!block) throw new Error('no ts example in the bula-tools/testing section')
  return block[1]!
}

describe('the bula-tools/testing example of docs/testing-and-ci.md', () => {
  it('pays a Checkout Session with payCheckoutSession and its outcome, and runs as written', async () => {
    const example = testingExample()
    expect(example).toMatch(/client\.payCheckoutSession\(session\.id, \{ outcome: 'succeeded'/)
    // Plain JavaScript as well as TypeScript, so node runs it unchanged; inside the package, so its own name resolves.
    const dir = path.join(ROOT, 'test-artifacts', 'docs-examples')
    mkdirSync(dir, { recursive: true })
    const file = path.join(dir, 'testing-and-ci.mjs')
    writeFileSync(file, example)
    const run = await execa('node', [file], { cwd: ROOT, timeout: 30_000 })
    expect(run.stdout.split('\n')).toEqual(['succeeded', '1'])
  })
})
