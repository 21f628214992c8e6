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

describe('a node:test file of a merchant, with the simulator of bula-tools/testing', () => {
  it('ends and prints its failure when a test fails before sim.close(), instead of waiting for the simulator forever', async () => {
    const dir = path.join(ROOT, 'test-artifacts', 'docs-examples')
    mkdirSync(dir, { recursive: true })
    const file = path.join(dir, 'fails-before-close.test.mjs')
    writeFileSync(
      file,
      [
        "import assert from 'node:assert/strict'",
        "import { test } from 'node:test'",
        "import { startSimulator } from 'bula-tools/testing'",
        "test('pays', async () => {",
        '  const sim = await startSimulator()',
        "  const shop = await sim.createMerchant('business')",
        "  const me = await (await fetch(`${sim.baseUrl}/v1/merchants/me`, { headers: { authorization: `Bearer ${shop.secretKey}` } })).json()",
        "  assert.equal(me.tier, 'individual')",
        '  await sim.close()',
        '})',
      ].join('\n'),
    )
    const run = await execa('node', ['--test', '--test-reporter=tap', file], { cwd: ROOT, timeout: 20_000, reject: false })
    expect(run.timedOut).toBe(false)
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain("actual: 'business'")
  })
})
