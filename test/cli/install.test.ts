import { execa } from 'execa'
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// Issue 23: Bula installed the way users install it, from the packed tarball, runs no install script.

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
    expect(shipped).toEqual(expect.arrayContaining(['bin', 'dist', 'templates', 'oclif.manifest.json', 'package.json']))
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
