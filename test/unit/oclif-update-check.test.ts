import { execa } from 'execa'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// Issue 14: "oclif update available" on every build. It comes from the oclif developer CLI's
// @oclif/plugin-warn-if-update-available, run by `oclif manifest` and `oclif readme`; the scripts run
// oclif through scripts/oclif.mjs, which turns that check off. `--version` runs the same start-up hook
// without writing oclif.manifest.json, which other tests read meanwhile.

const ROOT = path.resolve(import.meta.dirname, '../..')
const OCLIF = path.join(ROOT, 'node_modules', 'oclif', 'bin', 'run.js')

/** An oclif cache that already knows of a newer oclif, as one does after its background registry check. */
const cache = mkdtempSync(path.join(tmpdir(), 'bula-oclif-cache-'))
mkdirSync(path.join(cache, 'oclif'))
writeFileSync(path.join(cache, 'oclif', 'version'), JSON.stringify({ latest: '99.0.0' }))
afterAll(() => rmSync(cache, { recursive: true, force: true }))

const env = { XDG_CACHE_HOME: cache, OCLIF_SKIP_NEW_VERSION_CHECK: undefined }
const output = (result: { stdout: string; stderr: string }): string => `${result.stdout}\n${result.stderr}`

describe('oclif\'s "update available" notice', () => {
  it('is what the bare oclif CLI prints once it knows of a newer version', async () => {
    const bare = await execa('node', [OCLIF, '--version'], { cwd: ROOT, env })
    expect(output(bare)).toContain('oclif update available from')
  })

  it('never shows through scripts/oclif.mjs, the way every package script runs oclif', async () => {
    rmSync(path.join(cache, 'oclif', 'last-warning'), { force: true })
    const wrapped = await execa('node', [path.join(ROOT, 'scripts', 'oclif.mjs'), '--version'], { cwd: ROOT, env })
    expect(wrapped.stdout).toMatch(/^oclif\/\d+\.\d+\.\d+ /)
    expect(output(wrapped)).not.toContain('update available')
    const scripts = Object.values((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
    const oclifRuns = scripts.flatMap((script) => script.split('&&').map((step) => step.trim())).filter((step) => /\boclif\b/.test(step))
    expect(oclifRuns.length).toBeGreaterThanOrEqual(1)
    for (const step of oclifRuns) expect(step).toMatch(/^node scripts\/oclif\.mjs /)
    // `npm run build` runs scripts/build.mjs, which writes the manifest through the same wrapper.
    const build = readFileSync(path.join(ROOT, 'scripts', 'build.mjs'), 'utf8')
    expect(build).toContain("run(path.join(root, 'scripts', 'oclif.mjs'), 'manifest')")
    expect(build).not.toMatch(/oclif\/bin|oclif\/lib/)
  })
})
