// The config file's shape, checked by hand rather than with zod: every
// command that finds a config file reads it, and loading zod and building
// schemas for it was about a quarter of such a command's start
// (docs/performance.md, "CLI cold start").

import { isJsonObject } from '../json.js'

/** A saved connection. Fields a newer bula wrote are kept, so an older one saving a profile does not drop them. */
export interface Profile {
  baseUrl: string
  apiKey?: string
  publishableKey?: string
  [field: string]: unknown
}

export interface BulaConfig {
  current?: string
  profiles: Record<string, Profile>
  [field: string]: unknown
}

/** What is wrong with a config file's JSON: the path of the first bad value (`profiles.a.apiKey`) and why. */
export interface ConfigProblem {
  path: string
  message: string
}

function profileProblem(profile: unknown, path: string): ConfigProblem | undefined {
  if (!isJsonObject(profile)) return { path, message: 'expected an object' }
  if (typeof profile.baseUrl !== 'string') return { path: `${path}.baseUrl`, message: 'expected a string' }
  for (const field of ['apiKey', 'publishableKey']) {
    if (profile[field] !== undefined && typeof profile[field] !== 'string') return { path: `${path}.${field}`, message: 'expected a string' }
  }
  return undefined
}

/** The config as read, or the first problem in it. A file without `profiles` has none yet. */
export function parseConfig(json: unknown): { config: BulaConfig } | { problem: ConfigProblem } {
  if (!isJsonObject(json)) return { problem: { path: '', message: 'expected an object' } }
  if (json.current !== undefined && typeof json.current !== 'string') return { problem: { path: 'current', message: 'expected a string' } }
  const profiles = json.profiles === undefined ? {} : json.profiles
  if (!isJsonObject(profiles)) return { problem: { path: 'profiles', message: 'expected an object' } }
  for (const [name, profile] of Object.entries(profiles)) {
    const problem = profileProblem(profile, `profiles.${name}`)
    if (problem) return { problem }
  }
  return { config: { ...json, profiles: profiles as Record<string, Profile> } }
}
