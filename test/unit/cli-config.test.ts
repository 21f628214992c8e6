import { chmod, mkdtemp, readFile, readdir, rm, symlink, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  assertProfileWritable,
  configDir,
  DEFAULT_BASE_URL,
  loadConfig,
  makeProfileCurrent,
  maskKey,
  removeProfiles,
  resolveConnection,
  saveProfile,
} from '../../src/config/profiles.js'
import { ApiError } from '../../src/errors.js'
import { describeBaseUrlOrigin } from '../../src/cli/error-report.js'
import { expectMode } from '../helpers/platform.js'

let dir: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bula-config-'))
  env = { BULA_CONFIG_DIR: join(dir, 'bula') }
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('configDir', () => {
  it('prefers BULA_CONFIG_DIR, then XDG_CONFIG_HOME/bula, then ~/.config/bula', () => {
    expect(configDir({ BULA_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/x' })).toBe('/a')
    expect(configDir({ XDG_CONFIG_HOME: '/x' })).toBe('/x/bula')
    expect(configDir({ BULA_CONFIG_DIR: '', XDG_CONFIG_HOME: '' })).toMatch(/\.config\/bula$/)
  })
})

describe('saveProfile and loadConfig', () => {
  it('starts empty and writes the file 0600 in a 0700 folder', async () => {
    expect(await loadConfig(env)).toEqual({ profiles: {} })
    const file = await saveProfile('default', { baseUrl: 'http://x', apiKey: 'sk_test_1' }, { env })
    expect(file).toBe(join(dir, 'bula', 'config.json'))
    await expectMode(file, 0o600)
    await expectMode(join(dir, 'bula'), 0o700)
    expect(await loadConfig(env)).toEqual({ profiles: { default: { baseUrl: 'http://x', apiKey: 'sk_test_1' } } })
  })

  it('makes a config readable by others private when it reads it, not only at the next write: it holds secret keys', async () => {
    const file = await saveProfile('default', { baseUrl: 'http://x', apiKey: 'sk_test_1' }, { env })
    // As a copy from another machine or a backup would leave it.
    await chmod(file, 0o644)
    expect(await loadConfig(env)).toEqual({ profiles: { default: { baseUrl: 'http://x', apiKey: 'sk_test_1' } } })
    await expectMode(file, 0o600)
  })

  it('replaces a profile whole, keeps the others, and moves current only when asked', async () => {
    await saveProfile('default', { baseUrl: 'http://a', apiKey: 'sk_test_a', publishableKey: 'pk_test_a' }, { env })
    await saveProfile('live', { baseUrl: 'http://b', apiKey: 'sk_live_b' }, { env, makeCurrent: true })
    await saveProfile('default', { baseUrl: 'http://c', apiKey: 'sk_test_c' }, { env })
    expect(await loadConfig(env)).toEqual({
      current: 'live',
      profiles: {
        default: { baseUrl: 'http://c', apiKey: 'sk_test_c' },
        live: { baseUrl: 'http://b', apiKey: 'sk_live_b' },
      },
    })
  })

  it.skipIf(process.platform !== 'linux')('names the config file and BULA_CONFIG_DIR when the file cannot be written', async () => {
    // /proc/self takes no new file, even for root: a folder bula cannot write into on any Linux machine.
    const readOnly = { BULA_CONFIG_DIR: '/proc/self' }
    await expect(saveProfile('default', { baseUrl: 'http://x', apiKey: 'sk_test_1' }, { env: readOnly })).rejects.toMatchObject({
      code: 'file_unwritable',
      message: 'Cannot save profile "default" in /proc/self/config.json (ENOENT): make /proc/self writable, or set BULA_CONFIG_DIR to a folder you can write.',
    })
  })

  it('assertProfileWritable refuses what saveProfile would refuse, and changes nothing when the folder is writable', async () => {
    await expect(assertProfileWritable('default', { BULA_CONFIG_DIR: '/proc/self' })).rejects.toMatchObject({ code: 'file_unwritable' })
    await expect(assertProfileWritable('no spaces', env)).rejects.toMatchObject({ code: 'invalid_profile_name' })
    await assertProfileWritable('default', env)
    expect(await readdir(join(dir, 'bula'))).toEqual([])
    await expectMode(join(dir, 'bula'), 0o700)
  })

  it('keeps fields it does not know', async () => {
    await mkdir(join(dir, 'bula'))
    await writeFile(
      join(dir, 'bula', 'config.json'),
      JSON.stringify({ future: 1, profiles: { a: { baseUrl: 'http://a', note: 'x' } } }),
    )
    await saveProfile('b', { baseUrl: 'http://b' }, { env })
    const saved = JSON.parse(await readFile(join(dir, 'bula', 'config.json'), 'utf8'))
    expect(saved).toEqual({ future: 1, profiles: { a: { baseUrl: 'http://a', note: 'x' }, b: { baseUrl: 'http://b' } } })
  })

  it.each(['', '__proto__', 'a b', '-x', 'x'.repeat(65)])('refuses the profile name %j', async (name) => {
    await expect(saveProfile(name, { baseUrl: 'http://x' }, { env })).rejects.toMatchObject({
      code: 'invalid_profile_name',
    })
  })

  it('names the file when it cannot be parsed', async () => {
    await mkdir(join(dir, 'bula'))
    await writeFile(join(dir, 'bula', 'config.json'), '{nope')
    const error = await loadConfig(env).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 0, code: 'invalid_config' })
    expect((error as ApiError).message).toContain(join(dir, 'bula', 'config.json'))
  })

  it.each([
    [[], 'is not a bula config: expected an object'],
    [{ current: 7, profiles: {} }, 'is not a bula config at current: expected a string'],
    [{ profiles: [] }, 'is not a bula config at profiles: expected an object'],
    [{ profiles: null }, 'is not a bula config at profiles: expected an object'],
    [{ profiles: { a: 'http://a' } }, 'is not a bula config at profiles.a: expected an object'],
    [{ profiles: { a: { apiKey: 'sk_test_x' } } }, 'is not a bula config at profiles.a.baseUrl: expected a string'],
    [{ profiles: { a: { baseUrl: 'http://a', apiKey: 1 } } }, 'is not a bula config at profiles.a.apiKey: expected a string'],
    [{ profiles: { a: { baseUrl: 'http://a', publishableKey: null } } }, 'is not a bula config at profiles.a.publishableKey: expected a string'],
  ])('refuses a file of the wrong shape, %j, naming the value', async (json, message) => {
    await mkdir(join(dir, 'bula'))
    await writeFile(join(dir, 'bula', 'config.json'), JSON.stringify(json))
    await expect(loadConfig(env)).rejects.toMatchObject({ code: 'invalid_config', message: expect.stringContaining(message) })
  })

  it('refuses a config that is a folder, or a device that never ends, naming it, without reading it all', async () => {
    await mkdir(join(dir, 'bula', 'config.json'), { recursive: true })
    await expect(loadConfig(env)).rejects.toMatchObject({ code: 'invalid_config', message: `Cannot read ${join(dir, 'bula', 'config.json')}: it is a folder.` })
    await rm(join(dir, 'bula', 'config.json'), { recursive: true })
    await symlink('/dev/zero', join(dir, 'bula', 'config.json'))
    await expect(loadConfig(env)).rejects.toMatchObject({
      code: 'invalid_config',
      message: `${join(dir, 'bula', 'config.json')} is larger than 1 MiB, which no bula config is. Fix it or delete it to start over.`,
    })
  })

  it('reads a file without profiles as one with none, keeping fields a newer bula wrote', async () => {
    await mkdir(join(dir, 'bula'))
    await writeFile(join(dir, 'bula', 'config.json'), JSON.stringify({ future: { x: 1 } }))
    expect(await loadConfig(env)).toEqual({ future: { x: 1 }, profiles: {} })
  })
})

describe('resolveConnection', () => {
  beforeEach(async () => {
    await saveProfile('default', { baseUrl: 'http://default', apiKey: 'sk_test_default' }, { env })
    await saveProfile('other', { baseUrl: 'http://other', apiKey: 'sk_test_other' }, { env })
  })

  it('falls back to the "default" profile, then to the default base URL', async () => {
    expect(await resolveConnection({}, { env })).toEqual({
      profileName: 'default',
      baseUrl: 'http://default',
      baseUrlFrom: 'profile',
      apiKey: 'sk_test_default',
      apiKeyFrom: 'profile',
      apiKeyBaseUrl: 'http://default',
    })
    const empty = { BULA_CONFIG_DIR: join(dir, 'empty') }
    expect(await resolveConnection({}, { env: empty })).toEqual({
      profileName: 'default',
      baseUrl: DEFAULT_BASE_URL,
      baseUrlFrom: 'default',
      apiKey: undefined,
    })
  })

  it('uses the current profile over "default"', async () => {
    await saveProfile('current', { baseUrl: 'http://current', apiKey: 'sk_test_current' }, { env, makeCurrent: true })
    expect(await resolveConnection({}, { env })).toMatchObject({ profileName: 'current', apiKey: 'sk_test_current' })
  })

  it('uses BULA_PROFILE over the current profile, and the flag over BULA_PROFILE', async () => {
    await saveProfile('current', { baseUrl: 'http://current' }, { env, makeCurrent: true })
    expect(await resolveConnection({}, { env: { ...env, BULA_PROFILE: 'other' } })).toMatchObject({
      profileName: 'other',
      baseUrl: 'http://other',
    })
    expect(await resolveConnection({ profile: 'default' }, { env: { ...env, BULA_PROFILE: 'other' } })).toMatchObject({
      profileName: 'default',
      baseUrl: 'http://default',
    })
  })

  it('resolves each field: flags over environment over profile', async () => {
    const withEnv = { ...env, BULA_API_KEY: 'sk_test_env', BULA_BASE_URL: 'http://env' }
    expect(await resolveConnection({}, { env: withEnv })).toMatchObject({ apiKey: 'sk_test_env', baseUrl: 'http://env', baseUrlFrom: 'environment' })
    expect(await resolveConnection({ apiKey: 'sk_test_flag' }, { env: withEnv })).toMatchObject({
      apiKey: 'sk_test_flag',
      baseUrl: 'http://env',
    })
    expect(await resolveConnection({ baseUrl: 'http://flag' }, { env })).toMatchObject({
      apiKey: 'sk_test_default',
      baseUrl: 'http://flag',
      baseUrlFrom: 'flag',
    })
  })

  it('takes the publishable key from where the secret key came from, so both are one merchant\'s', async () => {
    await saveProfile('pair', { baseUrl: 'http://pair', apiKey: 'sk_test_pair', publishableKey: 'pk_test_pair' }, { env })
    const pairEnv = { ...env, BULA_PROFILE: 'pair' }
    expect(await resolveConnection({}, { env: pairEnv })).toMatchObject({ apiKey: 'sk_test_pair', publishableKey: 'pk_test_pair' })
    const withEnv = { ...pairEnv, BULA_API_KEY: 'sk_test_env', BULA_PUBLISHABLE_KEY: 'pk_test_env' }
    expect(await resolveConnection({}, { env: withEnv })).toMatchObject({ apiKey: 'sk_test_env', publishableKey: 'pk_test_env' })
    // A secret key of the environment never gets the profile's publishable key, nor a flag's the environment's.
    expect((await resolveConnection({}, { env: { ...pairEnv, BULA_API_KEY: 'sk_test_env' } })).publishableKey).toBeUndefined()
    expect((await resolveConnection({ apiKey: 'sk_test_flag' }, { env: withEnv })).publishableKey).toBeUndefined()
    expect(await resolveConnection({ apiKey: 'sk_test_flag', publishableKey: 'pk_test_flag' }, { env: withEnv })).toMatchObject({ publishableKey: 'pk_test_flag' })
  })

  it('treats empty environment variables as unset', async () => {
    const blank = { ...env, BULA_API_KEY: '', BULA_BASE_URL: '', BULA_PROFILE: '' }
    expect(await resolveConnection({}, { env: blank })).toMatchObject({
      profileName: 'default',
      apiKey: 'sk_test_default',
    })
  })

  it('says where the key came from: the flag, BULA_API_KEY or the profile', async () => {
    expect(await resolveConnection({ apiKey: 'sk_test_flag' }, { env: { ...env, BULA_API_KEY: 'sk_test_env' } })).toMatchObject({ apiKeyFrom: 'flag' })
    expect(await resolveConnection({}, { env: { ...env, BULA_API_KEY: 'sk_test_env' } })).toMatchObject({ apiKeyFrom: 'environment' })
    expect(await resolveConnection({}, { env })).toMatchObject({ apiKeyFrom: 'profile' })
  })

  it('keeps the address saved with a profile\'s key, which an invalid_api_key at another address names', async () => {
    expect(await resolveConnection({ baseUrl: 'http://elsewhere' }, { env })).toMatchObject({ baseUrl: 'http://elsewhere', apiKeyFrom: 'profile', apiKeyBaseUrl: 'http://default' })
    expect(await resolveConnection({ apiKey: 'sk_test_flag' }, { env })).not.toHaveProperty('apiKeyBaseUrl')
  })

  it('drops whitespace around environment values, such as the newline a key read from a secret file ends with', async () => {
    const padded = { ...env, BULA_API_KEY: 'sk_test_env\n', BULA_PUBLISHABLE_KEY: ' pk_test_env\r\n', BULA_BASE_URL: 'http://env\n', BULA_PROFILE: ' \n' }
    expect(await resolveConnection({}, { env: padded })).toEqual({
      profileName: 'default',
      apiKey: 'sk_test_env',
      publishableKey: 'pk_test_env',
      baseUrl: 'http://env',
      baseUrlFrom: 'environment',
      apiKeyFrom: 'environment',
    })
  })

  it('refuses a named profile that does not exist, unless told to allow it', async () => {
    await expect(resolveConnection({ profile: 'typo' }, { env })).rejects.toMatchObject({
      code: 'unknown_profile',
      message: expect.stringContaining('default, other'),
    })
    await expect(resolveConnection({}, { env: { ...env, BULA_PROFILE: 'typo' } })).rejects.toMatchObject({
      code: 'unknown_profile',
    })
  })

  // `bula login --api-key … --profile live` beside a simulator on another port: the new profile is for that simulator.
  it('gives a profile not made yet the base URL of the profile commands use without one, unless a flag or BULA_BASE_URL gives one', async () => {
    expect(await resolveConnection({ profile: 'new' }, { env, allowMissingProfile: true })).toEqual({
      profileName: 'new',
      baseUrl: 'http://default',
      baseUrlFrom: 'profile',
      baseUrlProfile: 'default',
      apiKey: undefined,
    })
    await saveProfile('current', { baseUrl: 'http://current:4933' }, { env, makeCurrent: true })
    const fresh = await resolveConnection({ profile: 'new' }, { env, allowMissingProfile: true })
    expect(fresh).toMatchObject({ baseUrl: 'http://current:4933', baseUrlFrom: 'profile', baseUrlProfile: 'current' })
    expect(describeBaseUrlOrigin(fresh)).toBe('That address came from the current profile "current", as profile "new" is new; --base-url points it at another simulator.')
    expect(await resolveConnection({ profile: 'new', baseUrl: 'http://flag' }, { env, allowMissingProfile: true })).toMatchObject({ baseUrl: 'http://flag', baseUrlFrom: 'flag' })
    expect(await resolveConnection({ profile: 'new' }, { env: { ...env, BULA_BASE_URL: 'http://env' }, allowMissingProfile: true })).toMatchObject({ baseUrl: 'http://env', baseUrlFrom: 'environment' })
    // A profile that exists keeps its own.
    expect(await resolveConnection({ profile: 'other' }, { env, allowMissingProfile: true })).not.toHaveProperty('baseUrlProfile')
    expect(await resolveConnection({ profile: 'other' }, { env, allowMissingProfile: true })).toMatchObject({ baseUrl: 'http://other' })
    expect(await resolveConnection({ profile: 'new' }, { env: { BULA_CONFIG_DIR: join(dir, 'empty') }, allowMissingProfile: true })).toEqual({
      profileName: 'new',
      baseUrl: DEFAULT_BASE_URL,
      baseUrlFrom: 'default',
      apiKey: undefined,
    })
  })
})

describe('maskKey', () => {
  it('keeps the prefix and the last four characters, and never a short key\'s rest', () => {
    expect(maskKey('sk_test_4eC39HqLyjWDarjtT1zdp7dc')).toBe('sk_test_…p7dc')
    expect(maskKey('pk_live_4eC39HqLyjWDarjtT1zdp7dc')).toBe('pk_live_…p7dc')
    // Written into the file by hand: four characters would be much of such a key.
    expect(maskKey('sk_test_short')).toBe('sk_test_…')
    expect(maskKey('hunter2')).toBe('…')
    expect(maskKey('a-long-key-without-a-known-prefix')).toBe('…efix')
  })
})

describe('makeProfileCurrent and removeProfiles', () => {
  beforeEach(async () => {
    await saveProfile('a', { baseUrl: 'http://a', apiKey: 'sk_test_a' }, { env, makeCurrent: true })
    await saveProfile('b', { baseUrl: 'http://b' }, { env })
  })

  it('refuse a name that is not a saved profile, an Object member included, and change nothing', async () => {
    for (const name of ['c', '__proto__', 'constructor']) {
      await expect(makeProfileCurrent(name, env)).rejects.toMatchObject({ code: 'unknown_profile', message: expect.stringContaining('(profiles: a, b).') })
      await expect(removeProfiles(['b', name], env)).rejects.toMatchObject({ code: 'unknown_profile' })
    }
    expect(await loadConfig(env)).toEqual({ current: 'a', profiles: { a: { baseUrl: 'http://a', apiKey: 'sk_test_a' }, b: { baseUrl: 'http://b' } } })
  })

  it('removing the current profile drops `current`, so resolution falls back as with a new config', async () => {
    await removeProfiles(['a'], env)
    const file = join(dir, 'bula', 'config.json')
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ profiles: { b: { baseUrl: 'http://b' } } })
    await expectMode(file, 0o600)
    expect(await resolveConnection({}, { env })).toMatchObject({ profileName: 'default', apiKey: undefined })
    await makeProfileCurrent('b', env)
    expect(await resolveConnection({}, { env })).toMatchObject({ profileName: 'b', baseUrl: 'http://b' })
  })
})
