import { execa } from 'execa'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { IS_POSIX } from '../helpers/platform.js'
import { BIN } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

const tempDir = () => tempFolder('bula-exec-')

/** A script that checks the environment bula exec gives it, then exits with the code asked for. */
const SCRIPT = `
const base = process.env.BULA_BASE_URL
const key = process.env.BULA_API_KEY
const me = await fetch(base + '/v1/merchants/me', { headers: { authorization: 'Bearer ' + key } })
const body = await me.json()
console.log(JSON.stringify({ base, status: me.status, name: body.name, pk: process.env.BULA_PUBLISHABLE_KEY?.slice(0, 8), pid: process.pid }))
const session = await fetch(base + '/v1/checkout-sessions', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json', 'idempotency-key': 'exec-1' },
  body: JSON.stringify({ amount: 1234, currency: 'FJD' }),
})
console.log('session', session.status)
process.exit(Number(process.argv[2] ?? 0))
`

describe('bula exec', () => {
  it('runs a passing command against a fresh simulator and passes its exit code through', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'check.mjs'), SCRIPT)
    const ok = await execa('node', [BIN, 'exec', '--', 'node', 'check.mjs', '0'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(ok.exitCode).toBe(0)
    const info = JSON.parse(ok.stdout.split('\n')[0]!)
    expect(info).toMatchObject({ status: 200, name: 'Kava Kitchen Ltd', pk: 'pk_test_' })
    expect(info.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(ok.stdout).toContain('session 201')
    // The simulator is gone afterwards.
    await expect(fetch(`${info.base}/_sim/health`)).rejects.toThrow()

    const failing = await execa('node', [BIN, 'exec', '--', 'node', 'check.mjs', '3'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(failing.exitCode).toBe(3)
  })

  // `npm test -- --grep x` is the usual way to pass arguments on: a second `--` used to run `--` (127).
  it('passes the command on as typed after the first `--`, a later `--` and flags included', async () => {
    const printArgs = 'console.log(JSON.stringify(process.argv.slice(1)))'
    const ran = await execa('node', [BIN, 'exec', '--', 'node', '-e', printArgs, 'a', '--', 'b', '--json', '--'], { reject: false, timeout: 30_000 })
    expect(ran.exitCode, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual(['a', '--', 'b', '--json', '--'])
  })

  it('runs `npm test` of a project, passing its exit code through', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'check.mjs'), SCRIPT)
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', private: true, scripts: { test: 'node check.mjs 0' } }))
    const passing = await execa('node', [BIN, 'exec', '--', 'npm', 'test', '--silent'], { cwd: dir, reject: false, timeout: 60_000 })
    expect(passing.exitCode).toBe(0)
    expect(passing.stdout).toContain('session 201')
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', private: true, scripts: { test: 'node check.mjs 4' } }))
    const failing = await execa('node', [BIN, 'exec', '--', 'npm', 'test', '--silent'], { cwd: dir, reject: false, timeout: 60_000 })
    expect(failing.exitCode).toBe(4)
  })

  it('exports the state on exit and starts from it again with fresh keys', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'check.mjs'), SCRIPT)
    const first = await execa('node', [BIN, 'exec', '--export-on-exit', 'state.json', '--', 'node', 'check.mjs'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(first.exitCode).toBe(0)
    const state = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8'))
    expect(state).toMatchObject({ format: 'bula-state', version: 1 })
    expect(state.collections.checkoutSessions).toEqual([expect.objectContaining({ amount: 1234 })])

    const second = await execa(
      'node',
      [BIN, 'exec', '--import', 'state.json', '--export-on-exit', 'state2.json', '--', 'node', 'check.mjs'],
      { cwd: dir, reject: false, timeout: 30_000 },
    )
    expect(second.exitCode).toBe(0)
    expect(JSON.parse(second.stdout.split('\n')[0]!)).toMatchObject({ status: 200, name: 'Kava Kitchen Ltd' })
    // Same key, same body: the imported idempotency record replays, so still one session.
    const after = JSON.parse(await readFile(path.join(dir, 'state2.json'), 'utf8'))
    expect(after.collections.checkoutSessions).toHaveLength(1)
    expect(after.collections.merchants).toEqual(state.collections.merchants.map((m: { id: string }) => expect.objectContaining({ id: m.id })))
  })

  it('refuses a state file that is not one, naming it', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'bad.json'), '{"hello": 1}')
    const result = await execa('node', [BIN, 'exec', '--import', 'bad.json', '--', 'true'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('bad.json')
    // One merchant's export (`bula state export`) is named as such, with the command that loads it.
    await writeFile(path.join(dir, 'merchant.json'), JSON.stringify({ format: 'bula-state', version: 1, merchantId: 'ms_1', collections: {} }))
    // Without npm_command, which `npx vitest` sets: the hint's commands are then plain `bula …`.
    const merchant = await execa('node', [BIN, 'exec', '--import', 'merchant.json', '--', 'true'], { cwd: dir, env: { npm_command: undefined }, reject: false, timeout: 30_000 })
    expect(merchant.exitCode).toBe(2)
    expect(merchant.stderr.replace(/\s*›\s*/g, ' ')).toContain("holds one merchant's objects (written by `bula state export`), not a whole simulator: load it into a running simulator with `bula state import")
  })

  // Windows delivers no SIGTERM: killing there ends bula at once, with no chance to stop the simulator (docs/platforms.md).
  it.skipIf(!IS_POSIX)('stops the simulator and the command on SIGTERM', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'wait.mjs'), "console.log(process.env.BULA_BASE_URL + ' ' + process.pid); setInterval(() => {}, 1000)\n")
    const child = execa('node', [BIN, 'exec', '--', 'node', 'wait.mjs'], { cwd: dir, reject: false, timeout: 30_000 })
    const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())))
    const [base, pid] = line.split(' ') as [string, string]
    expect((await fetch(`${base}/_sim/health`)).status).toBe(200)
    child.kill('SIGTERM')
    const result = await child
    expect(result.exitCode).toBe(143)
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
    // No process left behind: the command got the signal too.
    expect(() => process.kill(Number(pid), 0)).toThrow()
  })

  /** Runs `bula exec -- sh -c …` (POSIX) with a probe that prints the simulator's address first, so a test can check the port is closed after. */
  const execProbe = async (command: string[], extra: string[] = []) => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'probe.mjs'), "console.log('BASE ' + process.env.BULA_BASE_URL)\n")
    const result = await execa('node', [BIN, 'exec', ...extra, '--', 'sh', '-c', `node probe.mjs && ${command.join(' ')}`], { cwd: dir, reject: false, timeout: 60_000 })
    const base = /BASE (\S+)/.exec(result.stdout)?.[1]
    return { result, base }
  }

  it('runs `npm --version` (npm is a shim on Windows: execa resolves it) and closes the simulator\'s port after', async () => {
    const dir = await tempDir()
    const npm = await execa('node', [BIN, 'exec', '--', 'npm', '--version'], { cwd: dir, reject: false, timeout: 60_000 })
    expect(npm.exitCode, npm.stderr).toBe(0)
    expect(npm.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    if (!IS_POSIX) return
    const { result, base } = await execProbe(['true'])
    expect(result.exitCode).toBe(0)
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })

  it.skipIf(!IS_POSIX)('gives 128 + n when the command dies by signal n (SIGTERM: 143), and closes the port', async () => {
    const { result, base } = await execProbe(['kill -TERM $$'])
    expect(result.exitCode).toBe(143)
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })

  it.skipIf(!IS_POSIX)('kills a command that ignores Ctrl-C on the second one, and stops the simulator', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'probe.mjs'), "console.log('BASE ' + process.env.BULA_BASE_URL)\n")
    const run = execa('node', [BIN, 'exec', '--', 'sh', '-c', 'trap "" INT TERM; node probe.mjs; while :; do sleep 0.1; done'], { cwd: dir, reject: false, timeout: 60_000 })
    let base: string | undefined
    run.stdout!.on('data', (chunk: Buffer) => (base ??= /BASE (\S+)/.exec(chunk.toString())?.[1]))
    await expect.poll(() => base).toBeDefined()
    run.kill('SIGINT')
    // The command ignores the first: bula and the simulator are still up.
    expect((await fetch(`${base}/_sim/health`)).status).toBe(200)
    run.kill('SIGINT')
    const result = await run
    expect(result.exitCode).toBe(137)
    expect(result.stderr).toContain('stopping sh with SIGKILL (asked to stop 2 times)')
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })

  it('gives 127 and names a command that does not exist, and closes the port', async () => {
    const dir = await tempDir()
    const result = await execa('node', [BIN, 'exec', '--verbose', '--', 'no-such-command-bula'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(result.exitCode).toBe(127)
    expect(result.stderr).toContain('cannot run no-such-command-bula: no such command')
    const base = /simulator at (http:\/\/\S+);/.exec(result.stderr)?.[1]
    expect(base).toBeDefined()
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })

  it('says what is missing when no command is given, exit 2, and starts no simulator', async () => {
    const result = await execa('node', [BIN, 'exec'], { env: { npm_command: undefined }, reject: false, timeout: 30_000 })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Give the command to run after `--`, e.g. `bula exec -- npm test`.')
    expect(result.stderr).not.toContain('allowed-host')
  })

  it('logs requests only with --verbose', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'check.mjs'), SCRIPT)
    const quiet = await execa('node', [BIN, 'exec', '--', 'node', 'check.mjs'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(quiet.exitCode).toBe(0)
    expect(quiet.stderr).not.toMatch(/POST \/v1\/checkout-sessions 201/)
    const verbose = await execa('node', [BIN, 'exec', '--verbose', '--', 'node', 'check.mjs'], { cwd: dir, reject: false, timeout: 30_000 })
    expect(verbose.stderr).toMatch(/POST \/v1\/checkout-sessions 201/)
  })
})
