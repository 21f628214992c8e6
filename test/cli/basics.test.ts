import { execa } from 'execa'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { parseJsonOutput, removeCliConfigDir, runCli, type CliResult } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

// Behaviour that needs no simulator: help, usage errors and a simulator that is not there.

afterAll(removeCliConfigDir)

const manifest = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, unknown>
}

/** oclif's error text as a person reads it: without the ` ›   ` gutter and the line wrapping. */
const readable = (stderr: string): string => stderr.replace(/^\s*›\s*/gm, '').replace(/\s+/g, ' ')

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

describe('help', () => {
  it('shows a description and EXAMPLES for every command', async () => {
    const ids = Object.keys(manifest.commands)
    expect(ids).toEqual(expect.arrayContaining(['login', 'merchants:me', 'keys:rotate', 'clock:advance', 'verify:submit']))
    // One start per core at a time, not all of them at once: a burst of 61
    // Node processes starved the other test files' CLI starts (a `bula
    // listen` in a CI run printed nothing for 10 s).
    const results: CliResult[] = []
    let next = 0
    const lane = async (): Promise<void> => {
      for (let index = next++; index < ids.length; index = next++) results[index] = await runCli([...ids[index]!.split(':'), '--help'])
    }
    await Promise.all(Array.from({ length: availableParallelism() }, lane))
    for (const [index, result] of results.entries()) {
      expect(result.exitCode, ids[index]).toBe(0)
      expect(result.stdout, ids[index]).toContain('EXAMPLES')
      expect(result.stdout, ids[index]).toContain('DESCRIPTION')
    }
  })

  it('lists the global flags', async () => {
    const result = await runCli(['keys', 'list', '--help'])
    expect(result.stdout).toMatch(/GLOBAL FLAGS[\s\S]*--api-key[\s\S]*--base-url[\s\S]*--json[\s\S]*--profile/)
  })
})

describe('a reader that stops early', () => {
  it('ends bula at once and quietly with 141, as SIGPIPE ends a shell tool: not exit 13 and a warning from a flush that never ends', async () => {
    // `true` has closed the pipe before node has started, so bula's first write finds no reader.
    const result = await execa('bash', ['-c', 'node "$0" --help | true; exit "${PIPESTATUS[0]}"', BIN], { reject: false, timeout: 20_000 })
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(141)
  })

  it('stops bula serve as Ctrl-C does when its log\'s reader goes: the request answered, --export-on-exit written, the lock removed', async () => {
    const dir = await tempFolder('bula-epipe-')
    const serve = spawn('node', [BIN, 'serve', '--port', '0', '--data', path.join(dir, 'data.json'), '--export-on-exit', path.join(dir, 'out.json'), '--json', '--no-save-profile'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => serve.on('exit', resolve))
    const ready = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: serve.stdout! }).once('line', resolve))) as { baseUrl: string; demo: { business: { secret: string } } }
    // The reader goes away (a script that read the ready line): the request's log line is the first write to find no reader.
    serve.stdout!.destroy()
    serve.stderr!.destroy()
    const created = await fetch(`${ready.baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.demo.business.secret}`, 'content-type': 'application/json', 'idempotency-key': 'epipe-1' },
      body: JSON.stringify({ amount: 100, currency: 'FJD' }),
    })
    expect(created.status).toBe(201)
    expect(await exited).toBe(141)
    const exported = JSON.parse(await readFile(path.join(dir, 'out.json'), 'utf8')) as { collections: { checkoutSessions: { id: string }[] } }
    expect(exported.collections.checkoutSessions.map((session) => session.id)).toContain(((await created.json()) as { id: string }).id)
    expect(existsSync(path.join(dir, 'data.json.lock'))).toBe(false)
  })
})

describe('failures before the simulator answers', () => {
  it('reports a simulator that is not running, exit 1, no stack trace', async () => {
    const port = await closedPort()
    const baseUrl = `http://127.0.0.1:${port}`
    const result = await runCli(['merchants', 'me'], { env: { BULA_BASE_URL: baseUrl, BULA_API_KEY: 'sk_test_x', npm_command: 'exec' } })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.trim()).toBe(
      `connection_failed: Could not reach the simulator at ${baseUrl}. Start it with \`npx bula serve --port ${port}\`. That address came from BULA_BASE_URL.`,
    )
  })

  it('says which profile gave the address it could not reach, and how to point at another simulator', async () => {
    const port = await closedPort()
    const configDir = await tempFolder('bula-origin-')
    const profile = { baseUrl: `http://127.0.0.1:${port}`, apiKey: `sk_test_${'a'.repeat(32)}` }
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ current: 'default', profiles: { 'data-4112': profile } }), { mode: 0o600 })
    const result = await runCli(['balance', '--profile', 'data-4112'], { env: { BULA_CONFIG_DIR: configDir } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(
      `connection_failed: Could not reach the simulator at http://127.0.0.1:${port}. Start it with \`bula serve --port ${port}\`. ` +
        'That address came from profile "data-4112"; --profile or --base-url points the CLI at another simulator.',
    )
  })

  it('never prints the password of a base URL that holds one', async () => {
    const port = await closedPort()
    const env = { BULA_BASE_URL: `http://user:secretpw@127.0.0.1:${port}`, BULA_API_KEY: 'sk_test_x' }
    const result = await runCli(['merchants', 'me'], { env })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`Could not reach the simulator at http://***@127.0.0.1:${port}.`)
    const json = await runCli(['merchants', 'me', '--json'], { env })
    expect(`${result.stderr}${json.stdout}`).not.toContain('secretpw')
  })

  it('refuses a base URL ending in /v1 before sending anything, since every call adds /v1', async () => {
    const result = await runCli(['merchants', 'me', '--base-url', 'http://127.0.0.1:4600/v1'], { env: { BULA_API_KEY: 'sk_test_x' } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(
      'invalid_base_url: The base URL http://127.0.0.1:4600/v1 ends in /v1: give the simulator\'s root, without /v1 (http://127.0.0.1:4600), ' +
        'as every call adds /v1 itself. That address came from --base-url.',
    )
  })

  it('with --json prints the envelope on stdout instead', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`
    const result = await runCli(['clock', 'show', '--json'], { env: { BULA_BASE_URL: baseUrl, BULA_API_KEY: 'sk_test_x' } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toBe('')
    expect(parseJsonOutput(result)).toEqual({ error: { code: 'connection_failed', message: expect.any(String) } })
  })

  it('explains where a key comes from when there is none', async () => {
    const result = await runCli(['keys', 'list'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('missing_api_key: No API key: run `bula login --api-key sk_test_...`')
  })

  it('refuses an unknown profile by name', async () => {
    const result = await runCli(['merchants', 'me', '--profile', 'nope'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^unknown_profile: No profile named "nope"/)
  })

  it('exits 2 on a bad command line, and --json reports it as invalid_usage', async () => {
    const human = await runCli(['clock', 'advance', '2 days'])
    expect(human.exitCode).toBe(2)
    expect(human.stderr).toContain('Invalid duration "2 days"')

    // Neither a duration nor --to: the message says what is missing, not that there are two.
    const json = await runCli(['clock', 'advance', '--json'])
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({
      error: { code: 'invalid_usage', message: 'Say how far to move the clock: a duration (e.g. `bula clock advance 2h`) or --to <time>.' },
    })
    const both = await runCli(['clock', 'advance', '2h', '--to', '2026-02-02T00:00:00Z', '--json'])
    expect(both.exitCode).toBe(2)
    expect(parseJsonOutput(both)).toEqual({
      error: { code: 'invalid_usage', message: 'Give either a duration (e.g. `bula clock advance 2h`) or --to <time>, not both.' },
    })

    const missingFlag = await runCli(['keys', 'create', '--json'])
    expect(missingFlag.exitCode).toBe(2)
    expect(parseJsonOutput(missingFlag)).toMatchObject({ error: { code: 'invalid_usage' } })
  })

  it('names the command that was probably meant, without running it, exit 2 (issue 14)', async () => {
    // Not a terminal: @oclif/plugin-not-found only asked on one, so scripts and CI logs got no hint.
    const typo = await runCli(['sessionz'])
    expect(typo.exitCode).toBe(2)
    expect(readable(typo.stderr)).toContain('`bula sessionz` is not a bula command. Did you mean `bula sessions`? Run `bula help` for the list of commands.')
    const sub = await runCli(['sessions', 'lst'])
    expect(readable(sub.stderr)).toContain('Did you mean `bula sessions list`?')
    const swapped = await runCli(['invocies', 'list'])
    expect(readable(swapped.stderr)).toContain('Did you mean `bula invoices list`?')
    const far = await runCli(['deploy'])
    expect(far.exitCode).toBe(2)
    expect(readable(far.stderr)).toContain('`bula deploy` is not a bula command. Run `bula help`')
    expect(far.stderr).not.toContain('Did you mean')
  })

  it('answers `bula help [command]`, which every such message points to, as --help does; an unknown one gets the hint', async () => {
    const root = await runCli(['help'])
    expect(root.exitCode).toBe(0)
    expect(root.stdout).toContain('COMMANDS')
    expect(root.stdout).toContain('sessions')
    const command = await runCli(['help', 'sessions', 'create'])
    expect(command.exitCode).toBe(0)
    expect(command.stdout).toContain('$ bula sessions create')
    expect((await runCli(['sessions', 'create', '--help'])).stdout).toBe(command.stdout)
    const topic = await runCli(['help', 'sessions'])
    expect([topic.exitCode, topic.stdout.includes('sessions create')]).toEqual([0, true])
    const typo = await runCli(['help', 'sesions', 'create'])
    expect(typo.exitCode).toBe(2)
    expect(readable(typo.stderr)).toContain('`bula sesions create` is not a bula command. Did you mean `bula sessions create`?')
  })

  it('says that a command takes no argument, rather than that it does not exist (oclif reads the words into its name)', async () => {
    const result = await runCli(['conformance', 'http://127.0.0.1:4111', '--json'])
    expect(result.exitCode).toBe(2)
    expect(parseJsonOutput(result)).toEqual({
      error: { code: 'invalid_usage', message: '`bula conformance` takes no argument (got `http://127.0.0.1:4111`). Run `bula conformance --help` for its flags.' },
    })
    const words = await runCli(['conformance', 'extra', 'words'])
    expect(words.exitCode).toBe(2)
    expect(readable(words.stderr)).toContain('`bula conformance` takes no argument (got `extra words`).')
  })

  it('answers a mistyped command with --json as the invalid_usage envelope on stdout, exit 2', async () => {
    const json = await runCli(['sessionz', '--json'])
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({
      error: { code: 'invalid_usage', message: '`bula sessionz` is not a bula command. Did you mean `bula sessions`? Run `bula help` for the list of commands.' },
    })
    expect(json.stderr).toBe('')
    // After `--`, --json is an argument, not the flag.
    const passedOn = await runCli(['sessionz', '--', '--json'])
    expect(passedOn.exitCode).toBe(2)
    expect(passedOn.stdout).toBe('')
    expect(readable(passedOn.stderr)).toContain('`bula sessionz` is not a bula command.')
  })

  it('names the flag that was probably meant, also with --json (issue 14)', async () => {
    const typo = await runCli(['sessions', 'create', '--ammount', '5'])
    expect(typo.exitCode).toBe(2)
    expect(readable(typo.stderr)).toContain('Nonexistent flag: --ammount Did you mean --amount?')
    const negated = await runCli(['settings', 'set', '--no-reciepts'])
    expect(readable(negated.stderr)).toContain('Did you mean --no-receipts?')
    const json = await runCli(['sessions', 'create', '--ammount=5', '--json'])
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({
      error: { code: 'invalid_usage', message: 'Nonexistent flag: --ammount=5 Did you mean --amount?' },
    })
    const far = await runCli(['sessions', 'create', '--colour', 'blue'])
    expect(far.stderr).toContain('Nonexistent flag: --colour')
    expect(far.stderr).not.toContain('Did you mean')
  })

  it('refuses settings set without a setting', async () => {
    const result = await runCli(['settings', 'set'], { env: { BULA_API_KEY: 'sk_test_x' } })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Nothing to change')
  })
})
