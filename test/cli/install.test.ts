import { execa, execaSync } from 'execa'
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recipeCommands, type RecipeName } from '../helpers/ci-recipes.js'

// Bula installed the way users install it: the packed tarball runs no install script (issue 23), and the CI recipes of docs/testing-and-ci.md work with it (issue 16).

const ROOT = path.resolve(import.meta.dirname, '../..')
let dir: string
let tarball: string
let prefix: string
let installOutput: string

/** The project as a clone has it (tracked and new files, no build output), with this checkout's node_modules. */
async function cloneLike(target: string): Promise<void> {
  const { stdout } = await execa('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT })
  for (const file of stdout.split('\0').filter(Boolean)) {
    await mkdir(path.dirname(path.join(target, file)), { recursive: true })
    await cp(path.join(ROOT, file), path.join(target, file)).catch(() => undefined) // a file deleted but not yet committed
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(target, 'node_modules'), 'junction')
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-install-'))
  const source = path.join(dir, 'source')
  await cloneLike(source)
  // npm pack runs prepack (build, then the manifest without `prepare`) and postpack, as a release would.
  await execa('npm', ['pack', '--pack-destination', dir], { cwd: source })
  tarball = path.join(dir, (await readdir(dir)).find((file) => file.endsWith('.tgz'))!)
  prefix = path.join(dir, 'global')
  const installed = await execa('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    all: true,
    env: { npm_config_update_notifier: 'false' },
  })
  installOutput = installed.all
}, 300_000)
afterAll(() => rm(dir, { recursive: true, force: true }))

const installedBin = (): string => path.join(prefix, process.platform === 'win32' ? 'bula.cmd' : path.join('bin', 'bula'))

describe('npm pack, then npm install -g of the tarball', () => {
  it('ships the built files and no install-time script, so npm has nothing to warn about', async () => {
    expect(installOutput).not.toMatch(/install-scripts|allowScripts|allow-scripts/)
    const manifest = JSON.parse(await readFile(path.join(prefix, 'lib', 'node_modules', 'bula-tools', 'package.json'), 'utf8'))
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[script], script).toBeUndefined()
    const shipped = await readdir(path.join(prefix, 'lib', 'node_modules', 'bula-tools'))
    expect(shipped).toEqual(expect.arrayContaining(['bin', 'dist', 'docs', 'templates', 'oclif.manifest.json', 'package.json', 'LICENSE', 'README.md']))
    // The README's links lead into docs/, which an installed package must have too (testing-and-ci.md is the only guide to bula-tools/testing).
    for (const link of (await readFile(path.join(prefix, 'lib', 'node_modules', 'bula-tools', 'README.md'), 'utf8')).matchAll(/\]\((docs\/[^)#]+)/g)) {
      expect(shipped.includes('docs') && (await readdir(path.join(prefix, 'lib', 'node_modules', 'bula-tools', 'docs'))).includes(link[1]!.slice('docs/'.length)), link[1]).toBe(true)
    }
    expect(shipped).not.toContain('test')
    expect(shipped).not.toContain('server')
  })

  it('runs `bula --version`, `bula serve` and an API call through the installed binary', async () => {
    const version = await execa(installedBin(), ['--version'])
    expect(version.stdout).toMatch(/^bula-tools\/\d+\.\d+\.\d+ /)
    const serve = execa(installedBin(), ['serve', '--port', '0', '--json', '--memory', '--no-save-profile'], { reject: false, buffer: false, stdin: 'ignore' })
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: serve.stdout! }).once('line', resolve)
        void serve.then((result) => reject(new Error(`serve exited with ${result.exitCode}`)))
      })
      const ready = JSON.parse(line) as { baseUrl: string; demo: { business: { secret: string } } }
      const me = await fetch(`${ready.baseUrl}/v1/merchants/me`, { headers: { authorization: `Bearer ${ready.demo.business.secret}` } })
      expect(me.status).toBe(200)
      expect(((await me.json()) as { name: string }).name).toBe('Kava Kitchen Ltd')
    } finally {
      serve.kill('SIGTERM')
      await serve
    }
  })
})

describe('the CI recipes of docs/testing-and-ci.md, run on the sample projects of templates/ci/', () => {
  // Two lines cannot run here as written, and each is swapped for what it does:
  // the registry's bula-tools is this tarball, and PyPI is out of reach (pytest comes from Debian).
  const asHere = (command: string): string | null => {
    if (command === 'npm install --no-save bula-tools') return `npm install --no-save --no-audit --no-fund --prefer-offline ${tarball}`
    if (command === 'python3 -m pip install pytest') return null
    return command
  }

  /**
   * The recipe's commands in one shell, as a GitLab job runs them, in a copy
   * of the sample project; a background simulator is stopped after. The two
   * Python recipes share one copy, the second finding node_modules as a CI
   * cache would leave it: its `npm install` then checks the tree instead of
   * unpacking 230 packages again (about 8 s of CPU).
   */
  async function runRecipe(name: RecipeName, project: 'node' | 'python') {
    const work = path.join(dir, project)
    await cp(path.join(ROOT, 'templates', 'ci', project), work, { recursive: true })
    const commands = recipeCommands(name).flatMap((command) => asHere(command) ?? [])
    // The environment of a CI job: no simulator address or key of this test run's own.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BULA_')))
    // A process group of its own, so that what the job left running is stopped with it, as a CI runner does.
    const job = execa('bash', ['-ec', commands.join('\n')], {
      cwd: work,
      env: { ...env, npm_config_update_notifier: 'false' },
      extendEnv: false,
      all: true,
      reject: false,
      timeout: 240_000,
      detached: true,
    })
    const result = await job
    try {
      process.kill(-job.pid!, 'SIGTERM')
    } catch {
      // nothing was left running
    }
    return result
  }

  const hasPytest = execaSync('python3', ['-m', 'pytest', '--version'], { reject: false }).exitCode === 0

  it('the Node recipes are the same commands on GitHub and GitLab, and pass with `bula exec`', async () => {
    expect(recipeCommands('gitlab-node')).toEqual(recipeCommands('github-node'))
    expect(recipeCommands('github-node')).toContain('npx bula exec -- npm test')
    const result = await runRecipe('github-node', 'node')
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/\bpass 1\b/)
  }, 300_000)

  it.skipIf(!hasPytest)('the Python recipe with `bula exec` passes (install python3-pytest to run it)', async () => {
    const result = await runRecipe('github-python', 'python')
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/1 passed/)
  }, 300_000)

  it.skipIf(!hasPytest)('the Python recipe with `bula serve --json` in the background passes, and the simulator stops with the job', async () => {
    const result = await runRecipe('gitlab-python', 'python')
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/1 passed/)
    const ready = JSON.parse((await readFile(path.join(dir, 'python', 'bula.jsonl'), 'utf8')).split('\n')[0]!) as { baseUrl: string }
    await expect.poll(() => fetch(`${ready.baseUrl}/_sim/health`).then(() => 'up', () => 'stopped'), { timeout: 10_000 }).toBe('stopped')
  }, 300_000)

  it('the doctor line of docs/testing-and-ci.md passes on the sample project, whose test retrieves the session it paid', async () => {
    const result = await execa('npx', ['bula', 'exec', '--', 'sh', '-c', 'npm test && npx bula doctor'], { cwd: path.join(dir, 'node'), reject: false, all: true })
    expect(result.exitCode, result.all).toBe(0)
  }, 120_000)

  it('a failing test fails the recipe: the exit code comes through', async () => {
    const work = path.join(dir, 'node')
    await writeFile(path.join(work, 'test', 'failing.test.js'), "import { test } from 'node:test'\ntest('fails', () => { throw new Error('no') })\n")
    const result = await execa('npx', ['bula', 'exec', '--', 'npm', 'test'], { cwd: work, reject: false, all: true })
    expect(result.exitCode, result.all).toBe(1)
  }, 120_000)
})
