import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseFjdAmount } from '../../src/money.js'
import { checkWebhookReceiver } from '../../src/webhooks/check.js'

// docs/cli.md describes what some commands do in prose that no generator
// keeps up to date; these checks hold it to the code it describes.

const ROOT = path.resolve(import.meta.dirname, '../..')
const page = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8')

/** The text of the `### heading` section, with each run of white space as one space (prose wraps anywhere). */
function section(heading: string): string {
  const start = page.indexOf(`\n### ${heading}\n`)
  expect(start, `docs/cli.md has no "### ${heading}"`).toBeGreaterThanOrEqual(0)
  const end = page.indexOf('\n### ', start + 1)
  return page.slice(start, end === -1 ? undefined : end).replace(/\s+/g, ' ')
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']

describe('docs/cli.md', () => {
  it('init receiver: names --lang and every file each language writes, and no Express or package.json', () => {
    const text = section('init receiver')
    const langs = readdirSync(path.join(ROOT, 'templates', 'receiver'))
    expect(langs.length).toBeGreaterThan(1)
    for (const lang of langs) {
      expect(text).toContain(`\`${lang}\``)
      for (const file of readdirSync(path.join(ROOT, 'templates', 'receiver', lang))) expect(text).toContain(`\`${file}\``)
    }
    expect(text).toContain('--lang')
    expect(text).not.toMatch(/Express|package\.json|verifyWebhook/)
  })

  it('webhooks check: counts and names every case the check sends', async () => {
    const result = await checkWebhookReceiver({ url: 'http://receiver.test/webhooks', secret: 'whsec_docs', timeoutMs: 1000, send: async () => ({ status: 200, body: null }) })
    const text = section('webhooks check')
    expect(text).toContain(`Sends your receiver ${NUMBER_WORDS[result.cases.length]} `)
    for (const { name } of result.cases) expect(text).toContain(`\`${name}\``)
  })

  it('sessions create: quotes the CLI\'s own refusal of an amount out of range', () => {
    const refusal = (amount: string): string => {
      try {
        parseFjdAmount(amount)
      } catch (error) {
        return (error as Error).message
      }
      throw new Error(`--amount ${amount} was accepted`)
    }
    const text = section('sessions create, list, get, cancel, pay, open')
    for (const amount of ['0', '5000']) expect(text).toContain(refusal(amount))
    expect(text).toContain('exit 2')
  })
})
