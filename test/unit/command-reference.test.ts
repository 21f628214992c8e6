import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

describe('docs/commands.md', () => {
  it('documents every command of the built CLI (regenerate with `npm run docs:commands`)', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> }
    const reference = readFileSync(path.join(root, 'docs/commands.md'), 'utf8')
    const missing = Object.keys(manifest.commands)
      .map((id) => `## \`bula ${id.replaceAll(':', ' ')}`)
      .filter((heading) => !reference.includes(heading))
    expect(missing).toEqual([])
  })
})
