import { maskUrlCredentials } from './base-url.js'
import { bulaCommand } from './launch-command.js'
import { DEFAULT_PROFILE, envValue, isNamed, maskKey, profileInUse, profileNamed, type BulaConfig, type Profile, type ProfileInUse } from '../config/profiles.js'

/** The profile commands use now, and whether it exists: what `bula profiles` reports beside the current one. */
export type ProfileInUseReport = ProfileInUse & { exists: boolean }

export function inUseReport(config: BulaConfig, flag: string | undefined): ProfileInUseReport {
  const inUse = profileInUse(config, flag)
  return { ...inUse, exists: profileNamed(config, inUse.name) !== undefined }
}

/** `a`, `a and b`, `a, b and c`. */
export const andList = (items: readonly string[]): string => new Intl.ListFormat('en-GB', { type: 'conjunction' }).format(items)

/** `"nu-4321" (http://127.0.0.1:4321, sk_test_…9Qz1)`: which simulator and key, never the key itself. */
export const describeProfile = (name: string, profile: Profile): string =>
  `"${name}" (${maskUrlCredentials(profile.baseUrl)}, ${profile.apiKey ? maskKey(profile.apiKey) : 'no key'})`

/**
 * The end of "none is current…": what commands fall back on, "default" as
 * resolution does, or, without one, what to do before the next command
 * stops with missing_api_key.
 */
export function withoutCurrent(config: BulaConfig): string {
  const fallback = profileNamed(config, DEFAULT_PROFILE)
  if (fallback) return `, so commands use "${DEFAULT_PROFILE}" (${maskUrlCredentials(fallback.baseUrl)}).`
  const names = Object.keys(config.profiles).sort()
  if (names.length === 0) return ` and no profile is left: save one with \`${bulaCommand('login --api-key sk_test_...')}\`.`
  return `, and there is no "${DEFAULT_PROFILE}": make one current with \`${bulaCommand('profiles use NAME')}\` (profiles: ${names.join(', ')}).`
}

/**
 * A line for when commands would not use the current profile: `--profile`
 * or BULA_PROFILE names another (or one that does not exist), or the current
 * profile is missing or unset. Nothing when they use the current one.
 */
export function inUseNote(config: BulaConfig, inUse: ProfileInUseReport): string | undefined {
  if (isNamed(inUse.from)) {
    if (inUse.name === config.current && inUse.exists) return undefined
    const { by, uses, stops } = inUse.from === 'flag'
      ? { by: '--profile', uses: 'this command line uses it', stops: 'this command line stops' }
      : { by: 'BULA_PROFILE', uses: 'commands use it here', stops: 'commands stop' }
    if (!inUse.exists) return `${by} names "${inUse.name}", which does not exist: ${stops} with unknown_profile.`
    return `${by} names "${inUse.name}": ${uses}` + (config.current === undefined ? '.' : `, not the current profile "${config.current}".`)
  }
  if (inUse.from === 'current') {
    return inUse.exists ? undefined : `The current profile "${inUse.name}" does not exist: make another current with \`${bulaCommand('profiles use NAME')}\`.`
  }
  return `No profile is current${withoutCurrent(config)}`
}

/** What BULA_API_KEY and BULA_BASE_URL give in place of every profile's key and address (the key masked), if set. */
export interface EnvironmentOverrides {
  apiKey: string | null
  baseUrl: string | null
}

export function environmentOverrides(env: NodeJS.ProcessEnv = process.env): EnvironmentOverrides {
  const apiKey = envValue(env, 'BULA_API_KEY')
  return { apiKey: apiKey === undefined ? null : maskKey(apiKey), baseUrl: envValue(env, 'BULA_BASE_URL') ?? null }
}

/** A line for each variable set: a key or address from there is what commands use, whatever profile is listed. */
export function environmentNotes({ apiKey, baseUrl }: EnvironmentOverrides): string[] {
  return [
    ...(apiKey === null ? [] : [`BULA_API_KEY is set: commands use its key (${apiKey}), not the profile's.`]),
    ...(baseUrl === null ? [] : [`BULA_BASE_URL is set: commands call ${maskUrlCredentials(baseUrl)}, not the profile's address.`]),
  ]
}
