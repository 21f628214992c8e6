import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// Issue 14: the npm name `bula` belongs to an unrelated package. Nothing a user reads may tell them to
// install or import it, and every command line runs the `bula` of bula-tools the same way: `npx bula`.

const ROOT = path.resolve(import.meta.dirname, '../..')

/** docs/, templates/ and README.md, each file with its text; docs/commands.md is oclif's generated usage, not instructions. */
function userFacingFiles(): { file: string; text: string }[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    )
  return [...walk('docs'), ...walk('templates'), 'README.md']
    .filter((file) => /\.(md|json|mjs|js|py|php|html|txt|yml|yaml)$/.test(file) && file !== path.join('docs', 'commands.md'))
    .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }))
}

/** Ways a text can name the package `bula` rather than `bula-tools`. */
const NAMES_THE_PACKAGE = [
  { what: 'npm install of bula', pattern: /\bnpm\s+(?:install|i|add)\b[^\n`]*?(?<![\w@/.-])bula(?![\w-])/ },
  // Quoted as code or in prose: "imports verifyWebhook from `bula`" points at the same package.
  { what: 'an import of bula', pattern: /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"`]bula(?:\/[^'"`]*)?['"`]/ },
  { what: 'a bula dependency', pattern: /"bula"\s*:\s*"/ },
]

describe('the package is bula-tools everywhere a user reads', () => {
  it('no doc, template or README names the npm package `bula`', () => {
    const found = userFacingFiles().flatMap(({ file, text }) =>
      NAMES_THE_PACKAGE.filter(({ pattern }) => pattern.test(text)).map(({ what }) => `${file}: ${what}`),
    )
    expect(found).toEqual([])
  })

  it('every command line in a code block runs bula as `npx bula`', () => {
    const bare: string[] = []
    for (const { file, text } of userFacingFiles().filter(({ file }) => file.endsWith('.md'))) {
      let fenced = false
      for (const [index, line] of text.split('\n').entries()) {
        if (line.trim().startsWith('```')) fenced = !fenced
        else if (fenced && /(^\s*(\$ )?|&& |\|\| |\$\(|; |\| )bula /.test(line)) bare.push(`${file}:${index + 1}: ${line.trim()}`)
      }
    }
    expect(bare).toEqual([])
  })

  it('catches what it is looking for', () => {
    const [install, imported, dependency] = NAMES_THE_PACKAGE.map(({ pattern }) => pattern)
    expect(install!.test('npm install -g bula')).toBe(true)
    expect(install!.test('npm install --no-save bula-tools')).toBe(false)
    expect(imported!.test("import { verifyWebhook } from 'bula'")).toBe(true)
    expect(imported!.test("import { startSimulator } from 'bula/testing'")).toBe(true)
    expect(imported!.test("import { startSimulator } from 'bula-tools/testing'")).toBe(false)
    expect(imported!.test('with `verifyWebhook` from `bula`')).toBe(true)
    expect(imported!.test('with `verifyWebhook` from `bula-tools`')).toBe(false)
    expect(dependency!.test('{"dependencies": {"bula": "^0.1.0"}}')).toBe(true)
  })
})
