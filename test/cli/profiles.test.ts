import { execa } from 'execa'
import { spawnSync } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseJsonOutput, runCli } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'
import { expectMode, IS_POSIX } from '../helpers/platform.js'
import { tempFolder } from '../helpers/temp.js'

// `bula profiles` works on the config file alone: no simulator. Each test
// has a config folder of its own, so what one removes another still has.

const KEYS = {
  defaultSecret: 'sk_test_4eC39HqLyjWDarjtT1zdp7dcAbCdEfGh',
  defaultPublishable: 'pk_test_TYooMQauvdEDq54NiTphI7jxQrStUvWx',
  nuSecret: 'sk_test_nu4321SecretKeyValueWhichIsLong9Qz1',
  liveSecret: 'sk_live_LiveSecretKeyValueThatIsLongEnoughK7m2',
}

const SAVED = {
  current: 'default',
  // A field a newer bula may write: use and remove keep it.
  theme: 'dark',
  profiles: {
    default: { baseUrl: 'http://127.0.0.1:4111', apiKey: KEYS.defaultSecret, publishableKey: KEYS.defaultPublishable },
    'nu-4321': { baseUrl: 'http://127.0.0.1:4321', apiKey: KEYS.nuSecret },
    live: { baseUrl: 'http://127.0.0.1:4111', apiKey: KEYS.liveSecret },
  },
}

/** A config folder holding `config` (null: no file yet), and the environment that points the CLI at it. */
async function configFolder(config: unknown = SAVED) {
  const dir = path.join(await tempFolder('bula-profiles-'), 'bula')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, 'config.json')
  if (config !== null) await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
  return {
    file,
    env: { BULA_CONFIG_DIR: dir },
    read: async () => JSON.parse(await readFile(file, 'utf8')) as typeof SAVED,
  }
}

/** No output may hold a whole key, not even --json's. */
function expectNoSecret(text: string): void {
  for (const key of Object.values(KEYS)) expect(text).not.toContain(key)
}

describe('bula profiles list', () => {
  it('shows every profile with masked keys, the current one marked', async () => {
    const { env } = await configFolder()
    const result = await runCli(['profiles', 'list'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    expectNoSecret(result.stdout + result.stderr)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toMatch(/^\s+NAME\s+BASE URL\s+SECRET\s+PUBLISHABLE$/)
    expect(lines).toContainEqual(expect.stringMatching(/^\* {2}default\s+http:\/\/127\.0\.0\.1:4111\s+sk_test_…EfGh\s+pk_test_…UvWx$/))
    expect(lines).toContainEqual(expect.stringMatching(/^ {3}live\s+http:\/\/127\.0\.0\.1:4111\s+sk_live_…K7m2\s+—$/))
    expect(lines).toContainEqual(expect.stringMatching(/^ {3}nu-4321\s+http:\/\/127\.0\.0\.1:4321\s+sk_test_…9Qz1\s+—$/))
    expect(result.stdout).toContain('* current profile: commands use it unless --profile or BULA_PROFILE names another.')
  })

  it('is also `bula profiles` alone', async () => {
    const { env } = await configFolder()
    const [alone, list] = await Promise.all([runCli(['profiles'], { env }), runCli(['profiles', 'list'], { env })])
    expect(alone.exitCode, alone.stderr).toBe(0)
    expect(alone.stdout).toBe(list.stdout)
  })

  it('a mistyped subcommand gets the one meant, not read as an argument of `bula profiles`', async () => {
    const { env } = await configFolder()
    const result = await runCli(['profiles', 'lst'], { env })
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s*›\s*/g, ' ')).toContain('`bula profiles lst` is not a bula command. Did you mean `bula profiles list`?')
  })

  it('--json masks the keys as well', async () => {
    const { env, file } = await configFolder()
    const result = await runCli(['profiles', 'list', '--json'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    expectNoSecret(result.stdout)
    expect(parseJsonOutput(result)).toEqual({
      configFile: file,
      current: 'default',
      inUse: { name: 'default', from: 'current', exists: true },
      environment: { apiKey: null, baseUrl: null },
      profiles: [
        { name: 'default', current: true, baseUrl: 'http://127.0.0.1:4111', secretKey: 'sk_test_…EfGh', publishableKey: 'pk_test_…UvWx' },
        { name: 'live', current: false, baseUrl: 'http://127.0.0.1:4111', secretKey: 'sk_live_…K7m2', publishableKey: null },
        { name: 'nu-4321', current: false, baseUrl: 'http://127.0.0.1:4321', secretKey: 'sk_test_…9Qz1', publishableKey: null },
      ],
    })
  })

  it('says which profile commands use when BULA_PROFILE or --profile names another than the current one', async () => {
    const { env } = await configFolder()
    const fromEnvironment = await runCli(['profiles', 'list'], { env: { ...env, BULA_PROFILE: 'nu-4321' } })
    expect(fromEnvironment.exitCode, fromEnvironment.stderr).toBe(0)
    expect(fromEnvironment.stdout).toContain('BULA_PROFILE names "nu-4321": commands use it here, not the current profile "default".')
    const fromFlag = await runCli(['profiles', 'list', '--profile', 'live', '--json'], { env })
    expect(parseJsonOutput(fromFlag)).toMatchObject({ current: 'default', inUse: { name: 'live', from: 'flag', exists: true } })
    // A name that does not exist is listed as what it is, not refused: the list is how to find the right one.
    const missing = await runCli(['profiles', 'list'], { env: { ...env, BULA_PROFILE: 'nope' } })
    expect(missing.exitCode, missing.stderr).toBe(0)
    expect(missing.stdout).toContain('BULA_PROFILE names "nope", which does not exist: commands stop with unknown_profile.')
  })

  it('says when BULA_API_KEY or BULA_BASE_URL take the place of the key or address of the profile, the key masked', async () => {
    const { env } = await configFolder()
    const overridden = { ...env, BULA_API_KEY: KEYS.liveSecret, BULA_BASE_URL: 'http://127.0.0.1:4999' }
    const human = await runCli(['profiles', 'list'], { env: overridden })
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toContain('BULA_API_KEY is set: commands use its key (sk_live_…K7m2), not the profile\'s.')
    expect(human.stdout).toContain('BULA_BASE_URL is set: commands call http://127.0.0.1:4999, not the profile\'s address.')
    expect(human.stdout).not.toContain(KEYS.liveSecret)
    const json = await runCli(['profiles', 'list', '--json'], { env: overridden })
    expect(parseJsonOutput(json)).toMatchObject({ environment: { apiKey: 'sk_live_…K7m2', baseUrl: 'http://127.0.0.1:4999' } })
    expect(json.stdout).not.toContain(KEYS.liveSecret)
  })

  it('without profiles, says so and how to make one', async () => {
    const { env } = await configFolder(null)
    const human = await runCli(['profiles', 'list'], { env })
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/^No profiles yet in \S+config\.json\. Save one with `bula login --api-key sk_test_\.\.\.`, or start `bula serve`, which saves its demo keys as "default"\.$/)
    const json = await runCli(['profiles', 'list', '--json'], { env })
    expect(parseJsonOutput(json)).toMatchObject({ current: null, inUse: { name: 'default', from: 'default', exists: false }, profiles: [] })
  })
})

describe('bula profiles use', () => {
  it('makes a profile current, keeping the file private and its other fields', async () => {
    const { env, file, read } = await configFolder()
    const result = await runCli(['profiles', 'use', 'nu-4321'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('Profile "nu-4321" (http://127.0.0.1:4321, sk_test_…9Qz1) is now current.')
    expect(await read()).toEqual({ ...SAVED, current: 'nu-4321' })
    await expectMode(file, 0o600)
    const list = await runCli(['profiles', 'list', '--json'], { env })
    expect(parseJsonOutput(list)).toMatchObject({ current: 'nu-4321', inUse: { name: 'nu-4321', from: 'current' } })
  })

  it('says when BULA_PROFILE still names another profile', async () => {
    const { env } = await configFolder()
    const result = await runCli(['profiles', 'use', 'live'], { env: { ...env, BULA_PROFILE: 'nu-4321' } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain('BULA_PROFILE names "nu-4321": commands use it here, not the current profile "live".')
  })

  it('refuses an unknown name with unknown_profile, naming the profiles there are', async () => {
    const { env, file, read } = await configFolder()
    const human = await runCli(['profiles', 'use', 'nu-9999'], { env })
    expect(human.exitCode).toBe(1)
    expect(human.stderr.trim()).toBe(`unknown_profile: No profile named "nu-9999" in ${file} (profiles: default, live, nu-4321).`)
    const json = await runCli(['profiles', 'use', 'nu-9999', '--json'], { env })
    expect(json.exitCode).toBe(1)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'unknown_profile', message: `No profile named "nu-9999" in ${file} (profiles: default, live, nu-4321).` } })
    expect(await read()).toEqual(SAVED)
    // Nothing saved yet: the message says how to make one.
    const empty = await configFolder(null)
    const none = await runCli(['profiles', 'use', 'default'], { env: empty.env })
    expect(none.exitCode).toBe(1)
    expect(none.stderr.trim()).toBe(`unknown_profile: No profile named "default" in ${empty.file}. Create one with \`bula login\`.`)
  })
})

describe('bula profiles remove', () => {
  it('removes profiles with --yes, keeping the file private and the current profile', async () => {
    const { env, file, read } = await configFolder()
    const result = await runCli(['profiles', 'remove', 'nu-4321', 'live', '--yes', '--json'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    expectNoSecret(result.stdout)
    expect(parseJsonOutput(result)).toEqual({
      configFile: file,
      removed: ['nu-4321', 'live'],
      current: 'default',
      inUse: { name: 'default', from: 'current', exists: true },
    })
    expect(await read()).toEqual({ ...SAVED, profiles: { default: SAVED.profiles.default } })
    await expectMode(file, 0o600)
  })

  it('removing the current profile leaves none current, and says what commands use now', async () => {
    const withDefault = await configFolder({ ...SAVED, current: 'nu-4321' })
    const fellBack = await runCli(['profiles', 'remove', 'nu-4321', '-y'], { env: withDefault.env })
    expect(fellBack.exitCode, fellBack.stderr).toBe(0)
    expect(fellBack.stdout).toBe(
      `Removed profile "nu-4321" from ${withDefault.file}.\n"nu-4321" was the current profile; none is current now, so commands use "default" (http://127.0.0.1:4111).`,
    )
    const { current, ...rest } = await withDefault.read()
    expect(current).toBeUndefined()
    expect(rest.profiles).not.toHaveProperty('nu-4321')

    // Without a "default" to fall back on, the next command would stop with missing_api_key: say what to do first.
    const noDefault = await configFolder()
    const removed = await runCli(['profiles', 'remove', 'default', '--yes'], { env: noDefault.env })
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(removed.stdout).toContain('"default" was the current profile; none is current now, and there is no "default": make one current with `bula profiles use NAME` (profiles: live, nu-4321).')
    const next = await runCli(['merchants', 'me'], { env: noDefault.env })
    expect(next.exitCode).toBe(1)
    expect(next.stderr).toMatch(/^missing_api_key: /)
  })

  it('refuses unknown names before removing anything', async () => {
    const { env, file, read } = await configFolder()
    const result = await runCli(['profiles', 'remove', 'live', 'nope', '--yes'], { env })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(`unknown_profile: No profile named "nope" in ${file} (profiles: default, live, nu-4321).`)
    expect(await read()).toEqual(SAVED)
  })

  it('refuses without a terminal to confirm on unless --yes is given, as state reset does', async () => {
    const { env, read } = await configFolder()
    const human = await runCli(['profiles', 'remove', 'live'], { env })
    expect(human.exitCode).toBe(2)
    expect(human.stderr).toContain('No terminal to confirm on: add --yes to go ahead.')
    const json = await runCli(['profiles', 'remove', 'live', '--json'], { env })
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'invalid_usage', message: 'No terminal to confirm on: add --yes to go ahead.' } })
    expect(await read()).toEqual(SAVED)
  })

  const hasScript = IS_POSIX && spawnSync('script', ['--version']).status === 0

  it.skipIf(!hasScript)('asks on a terminal, naming the masked keys, and removes only on yes', async () => {
    const { env, read } = await configFolder()
    // script(1) gives the command a terminal and types the answer into it.
    const onTerminal = (answer: string, extraArgs = '') =>
      execa('script', ['-qec', `node ${BIN} profiles remove live nu-4321${extraArgs}`, '/dev/null'], {
        env: { ...env, NO_COLOR: '1' },
        input: `${answer}\n`,
        reject: false,
      })
    const declined = await onTerminal('n')
    expect(declined.exitCode, declined.stdout).toBe(0)
    expectNoSecret(declined.stdout)
    expect(declined.stdout).toContain(
      'Remove profiles "live" (http://127.0.0.1:4111, sk_live_…K7m2) and "nu-4321" (http://127.0.0.1:4321, sk_test_…9Qz1)? ' +
        'The file may hold the only copy of their keys: a key is shown once, when it is made. [y/N]',
    )
    expect(declined.stdout).toContain('Nothing was removed.')
    expect(await read()).toEqual(SAVED)
    // --json: the shape of a removal's answer, with nothing removed.
    const declinedJson = await onTerminal('n', ' --json')
    expect(JSON.parse(declinedJson.stdout.slice(declinedJson.stdout.indexOf('{')))).toMatchObject({ removed: [], current: 'default' })

    const confirmed = await onTerminal('y')
    expect(confirmed.exitCode, confirmed.stdout).toBe(0)
    expect(confirmed.stdout).toContain('Removed profiles "live" and "nu-4321" from ')
    expect(Object.keys((await read()).profiles)).toEqual(['default'])
  })
})
