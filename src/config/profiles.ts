import { randomUUID } from 'node:crypto'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { readFailure, readFileAtMost } from '../bounded-read.js'
import { byteSize } from '../byte-size.js'
import { ApiError } from '../errors.js'
import { maskedKey } from '../key-mask.js'
import { makePrivate } from '../private-file.js'
import { parseConfig, type BulaConfig, type Profile } from './config-schema.js'
import { bulaCommand } from '../cli/launch-command.js'

export type { BulaConfig, Profile } from './config-schema.js'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4111'
export const DEFAULT_PROFILE = 'default'

// Names become JSON keys and file-facing labels; a narrow alphabet keeps out
// `__proto__` and names a shell would need quoting for.
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

type Env = NodeJS.ProcessEnv

/**
 * An environment variable without the whitespace around it, with an empty
 * value counted as unset. A key read from a secret file often ends in a
 * newline, which no key or URL holds and which Node refuses in a header
 * (the request then failed as a "network_error").
 */
export const envValue = (env: Env, name: string): string | undefined => env[name]?.trim() || undefined

/** `$BULA_CONFIG_DIR`, else `$XDG_CONFIG_HOME/bula`, else `~/.config/bula`. */
export function configDir(env: Env = process.env): string {
  const explicit = envValue(env, 'BULA_CONFIG_DIR')
  if (explicit) return explicit
  return join(envValue(env, 'XDG_CONFIG_HOME') ?? join(homedir(), '.config'), 'bula')
}

export const configPath = (env: Env = process.env): string => join(configDir(env), 'config.json')

/** More than profiles ever take: a config named as /dev/zero was read to 680 MB before it failed. */
const MAX_CONFIG_BYTES = 1024 * 1024

/** The config file's contents; an empty config when the file does not exist yet. */
export async function loadConfig(env: Env = process.env): Promise<BulaConfig> {
  const file = configPath(env)
  let bytes: Buffer | undefined
  try {
    bytes = await readFileAtMost(file, MAX_CONFIG_BYTES)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} }
    throw new ApiError(0, 'invalid_config', `Cannot read ${file}: ${readFailure(error)}.`)
  }
  await keepPrivate(file)
  if (bytes === undefined) {
    throw new ApiError(0, 'invalid_config', `${file} is larger than ${byteSize(MAX_CONFIG_BYTES)}, which no bula config is. Fix it or delete it to start over.`)
  }
  const text = bytes.toString('utf8')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ApiError(0, 'invalid_config', `${file} is not valid JSON. Fix it or delete it to start over.`)
  }
  const parsed = parseConfig(json)
  if ('problem' in parsed) {
    const where = parsed.problem.path ? ` at ${parsed.problem.path}` : ''
    throw new ApiError(0, 'invalid_config', `${file} is not a bula config${where}: ${parsed.problem.message}. Fix it or delete it.`)
  }
  return parsed.config
}

/**
 * The config holds secret keys: one with another mode (readable by others
 * after a copy from another machine or a restore from a backup) is made 0600
 * when it is read, as every write makes it. Where the system has no such modes (Windows: the
 * profile folder's ACLs), or bula may not change them (another user's
 * file), it is left as it is and still read.
 */
async function keepPrivate(file: string): Promise<void> {
  if (process.platform === 'win32') return
  await makePrivate(file).catch(() => {
    // Not ours to change: reading it is still what was asked.
  })
}

/** Throws unless `name` can be saved; check before work whose result would be lost. */
export function assertProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new ApiError(
      0,
      'invalid_profile_name',
      `Invalid profile name "${name}": use letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit.`,
    )
  }
}

export interface SaveProfileOptions {
  /** Also make this the profile used when none is named. */
  makeCurrent?: boolean
  env?: Env
}

/**
 * Stores `profile` under `name`, replacing any profile of that name whole (a
 * new key pair must not inherit the old pair's other key), and returns the
 * config file's path. Other profiles and the current profile are kept unless
 * `makeCurrent` is set. The file is replaced atomically with mode 0600 in a
 * 0700 folder, because it holds secret keys.
 */
export async function saveProfile(name: string, profile: Profile, options: SaveProfileOptions = {}): Promise<string> {
  const env = options.env ?? process.env
  assertProfileName(name)
  const config = await loadConfig(env)
  const next: BulaConfig = {
    ...config,
    current: options.makeCurrent ? name : config.current,
    profiles: { ...config.profiles, [name]: profile },
  }
  const file = configPath(env)
  await writePrivateJson(file, next, `profile "${name}"`)
  return file
}

/**
 * Replaces a config-folder file holding secrets (profiles, listen secrets)
 * atomically, 0600 in a 0700 folder. A failure is `file_unwritable` naming
 * `what` and the file the user knows, with what to do: Node's own message
 * names the temporary file.
 */
export async function writePrivateJson(file: string, contents: unknown, what: string): Promise<void> {
  await withPrivateTemporary(file, what, async (temporary) => {
    await writeFile(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 })
    await rename(temporary, file)
  })
}

/**
 * Throws the `file_unwritable` that saving profile `name` would, without
 * changing the config: check before work whose result only the profile
 * would keep (a signup's keys are shown once).
 */
export async function assertProfileWritable(name: string, env: Env = process.env): Promise<void> {
  assertProfileName(name)
  await loadConfig(env)
  await withPrivateTemporary(configPath(env), `profile "${name}"`, async (temporary) => {
    await writeFile(temporary, '', { mode: 0o600 })
    await rm(temporary)
  })
}

/**
 * Runs `write` with a temporary file's path beside `file`, in the config
 * folder made 0700 if missing, and removes the temporary if `write` fails. A
 * failure is `file_unwritable` naming `what` and `file`, not the temporary.
 */
async function withPrivateTemporary(file: string, what: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const dir = dirname(file)
  const temporary = join(dir, `.${basename(file)}.${randomUUID()}.tmp`)
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await write(temporary)
  } catch (error) {
    await rm(temporary, { force: true })
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new ApiError(0, 'file_unwritable', `Cannot save ${what} in ${file} (${reason}): make ${dir} writable, or set BULA_CONFIG_DIR to a folder you can write.`)
  }
}

/** Where the profile in use was named: `--profile`, BULA_PROFILE, the config's `current`, or nowhere ("default"). */
export type ProfileSource = 'flag' | 'environment' | 'current' | 'default'

export interface ProfileInUse {
  name: string
  from: ProfileSource
}

/** Whether the profile was named by the user for this command, and so must exist: a typo must not fall back silently. */
export const isNamed = (from: ProfileSource): boolean => from === 'flag' || from === 'environment'

/**
 * The profile commands use: the one named by `flag` (a command's
 * `--profile`) or BULA_PROFILE, else the config's current profile, else
 * "default". It may not exist.
 */
export function profileInUse(config: BulaConfig, flag: string | undefined, env: Env = process.env): ProfileInUse {
  if (flag) return { name: flag, from: 'flag' }
  const fromEnvironment = envValue(env, 'BULA_PROFILE')
  if (fromEnvironment) return { name: fromEnvironment, from: 'environment' }
  if (config.current !== undefined) return { name: config.current, from: 'current' }
  return { name: DEFAULT_PROFILE, from: 'default' }
}

/** The profile saved as `name`, never an Object.prototype member (`__proto__`, `constructor`). */
export const profileNamed = (config: BulaConfig, name: string): Profile | undefined =>
  Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined

/** `unknown_profile` for `name`, listing the profiles there are, or saying how to make one. */
export function unknownProfile(name: string, config: BulaConfig, env: Env = process.env): ApiError {
  const known = Object.keys(config.profiles).sort()
  return new ApiError(
    0,
    'unknown_profile',
    `No profile named "${name}" in ${configPath(env)}` + (known.length ? ` (profiles: ${known.join(', ')}).` : `. Create one with \`${bulaCommand('login')}\`.`),
  )
}

/**
 * A key as `bula profiles` shows it, in the API's masked form
 * (`sk_test_…X6bL`): its prefix and last four characters. A key too short
 * for the four to be a small part of it (written into the file by hand)
 * keeps only its prefix.
 */
export function maskKey(key: string): string {
  const prefix = /^(?:sk|pk)_(?:test|live)_/.exec(key)?.[0] ?? ''
  const rest = key.slice(prefix.length)
  return maskedKey(prefix, rest.length >= 12 ? rest.slice(-4) : '')
}

/**
 * Makes the existing profile `name` current (`unknown_profile` otherwise) and
 * returns the config as saved, with the config file's path.
 */
export async function makeProfileCurrent(name: string, env: Env = process.env): Promise<{ config: BulaConfig; file: string }> {
  const config = await loadConfig(env)
  if (!profileNamed(config, name)) throw unknownProfile(name, config, env)
  return writeConfig({ ...config, current: name }, env)
}

/**
 * Removes the profiles `names`, all or none (`unknown_profile` for the first
 * that does not exist), and returns the config as saved, with the config
 * file's path. Removing the current profile leaves none current, rather
 * than `current` naming nothing: commands then use "default" as with a new
 * config, or stop with missing_api_key, which says how to get a key, and
 * `bula login` saves to "default" instead of bringing the removed name back.
 */
export async function removeProfiles(names: readonly string[], env: Env = process.env): Promise<{ config: BulaConfig; file: string }> {
  const config = await loadConfig(env)
  const missing = names.find((name) => !profileNamed(config, name))
  if (missing !== undefined) throw unknownProfile(missing, config, env)
  const profiles = Object.fromEntries(Object.entries(config.profiles).filter(([name]) => !names.includes(name)))
  const current = config.current !== undefined && names.includes(config.current) ? undefined : config.current
  return writeConfig({ ...config, current, profiles }, env)
}

async function writeConfig(config: BulaConfig, env: Env): Promise<{ config: BulaConfig; file: string }> {
  const file = configPath(env)
  await writePrivateJson(file, config, 'the profiles')
  return { config, file }
}

/** Which key and simulator address to use; each field is resolved on its own. */
export interface ConnectionFlags {
  apiKey?: string
  /** A `pk_…` key, for the few commands that use one (`bula conformance`). */
  publishableKey?: string
  baseUrl?: string
  profile?: string
}

export interface Connection {
  baseUrl: string
  apiKey?: string
  /** The publishable key of the same merchant as apiKey, when known. */
  publishableKey?: string
  /** The profile consulted (it may not exist yet, e.g. for `bula login`). */
  profileName: string
  /** Where baseUrl came from, which a failure to reach it names. */
  baseUrlFrom: 'flag' | 'environment' | 'profile' | 'default'
  /** The profile that gave baseUrl when it is not profileName: the one commands use without --profile, for a profile not made yet. */
  baseUrlProfile?: string
  /** Where apiKey came from (none without a key), which a refusal of the key names. */
  apiKeyFrom?: 'flag' | 'environment' | 'profile'
  /** The address saved with the profile's key, when apiKey came from a profile: the simulator that key belongs to. */
  apiKeyBaseUrl?: string
}

export interface ResolveConnectionOptions {
  env?: Env
  /**
   * Accept a named profile that does not exist yet (for commands that create
   * it). Its base URL, unless a flag or BULA_BASE_URL gives one, is then the
   * current profile's (else "default"'s): the simulator in use, not the
   * default address.
   */
  allowMissingProfile?: boolean
}

/**
 * Resolves each of the API key and base URL from, in order: the flags, the
 * environment (BULA_API_KEY, BULA_BASE_URL), the profile, and for the base URL
 * the default local simulator. The publishable key comes from its flag, else
 * from the same place as the secret key (BULA_PUBLISHABLE_KEY beside
 * BULA_API_KEY, or the profile's pair), so the two belong to one merchant; a
 * secret key given as a flag has no publishable key but the flag's. The
 * profile is the one named by the flag or
 * BULA_PROFILE, else the config's current profile, else "default". A profile
 * named explicitly must exist, so that a typo does not fall back silently.
 */
export async function resolveConnection(
  flags: ConnectionFlags,
  options: ResolveConnectionOptions = {},
): Promise<Connection> {
  const env = options.env ?? process.env
  const config = await loadConfig(env)
  const { name: profileName, from } = profileInUse(config, flags.profile, env)
  const profile = profileNamed(config, profileName)
  if (isNamed(from) && profile === undefined && !options.allowMissingProfile) throw unknownProfile(profileName, config, env)
  const envKey = envValue(env, 'BULA_API_KEY')
  const pairedPublishable = flags.apiKey ? undefined : envKey ? envValue(env, 'BULA_PUBLISHABLE_KEY') : profile?.publishableKey
  const publishableKey = flags.publishableKey || pairedPublishable
  const envBaseUrl = envValue(env, 'BULA_BASE_URL')
  // `bula login --profile live` while the demo profile points at a simulator on another port: the new profile is for
  // that simulator, the one commands use without --profile (the current profile, else "default").
  const usual = config.current ?? DEFAULT_PROFILE
  const baseUrlProfile = profile ? profileName : options.allowMissingProfile && profileNamed(config, usual)?.baseUrl ? usual : undefined
  const profileBaseUrl = baseUrlProfile === undefined ? undefined : profileNamed(config, baseUrlProfile)?.baseUrl
  const [baseUrl, baseUrlFrom]: [string, Connection['baseUrlFrom']] = flags.baseUrl
    ? [flags.baseUrl, 'flag']
    : envBaseUrl
      ? [envBaseUrl, 'environment']
      : profileBaseUrl
        ? [profileBaseUrl, 'profile']
        : [DEFAULT_BASE_URL, 'default']
  const apiKeyFrom: Connection['apiKeyFrom'] = flags.apiKey ? 'flag' : envKey ? 'environment' : profile?.apiKey ? 'profile' : undefined
  return {
    profileName,
    baseUrl,
    baseUrlFrom,
    ...(baseUrlFrom === 'profile' && baseUrlProfile !== undefined && baseUrlProfile !== profileName ? { baseUrlProfile } : {}),
    apiKey: flags.apiKey || envKey || profile?.apiKey,
    ...(apiKeyFrom ? { apiKeyFrom } : {}),
    ...(apiKeyFrom === 'profile' && profile ? { apiKeyBaseUrl: profile.baseUrl } : {}),
    ...(publishableKey ? { publishableKey } : {}),
  }
}
