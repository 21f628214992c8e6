import { execa } from 'execa'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { recipeYaml } from '../helpers/ci-recipes.js'
import { tempFolder } from '../helpers/temp.js'

// The GitHub Actions recipe for macOS and Windows cannot run here, so it is validated here (docs/platforms.md).
const ROOT = path.resolve(import.meta.dirname, '../..')
const WORKFLOW = path.join(ROOT, '.github', 'workflows', 'ci.yml')
// Run from node_modules/.bin directly (preferLocal): `npx` would start npm first, about 0.45 s of CPU a call.
const validate = (file: string) => execa('action-validator', [file], { cwd: ROOT, preferLocal: true, reject: false })

describe('.github/workflows/ci.yml', () => {
  it('is a valid workflow, with the matrix of three systems and three Node lines', async () => {
    const result = await validate(WORKFLOW)
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const text = await readFile(WORKFLOW, 'utf8')
    expect(text).toContain('os: [ubuntu-latest, macos-latest, windows-latest]')
    expect(text).toContain('node: [22, 24, 26]')
  })

  it('would be refused if broken: the validator is not a rubber stamp', async () => {
    const broken = path.join(await tempFolder('bula-workflow-'), 'ci.yml')
    await writeFile(broken, (await readFile(WORKFLOW, 'utf8')).replace('runs-on: ${{ matrix.os }}', 'runs-on: 42\n    runs_on_typo: true'))
    const result = await validate(broken)
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout + result.stderr).toMatch(/runs_on_typo|Additional properties|not allowed/i)
  })
})

describe('the GitHub Actions recipes of docs/testing-and-ci.md', () => {
  it.each(['github-node', 'github-python'] as const)('%s is a valid workflow', async (name) => {
    const file = path.join(await tempFolder('bula-recipe-'), `${name}.yml`)
    await writeFile(file, recipeYaml(name))
    const result = await validate(file)
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  })
})
