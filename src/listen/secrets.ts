import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { configDir, writePrivateJson } from '../config/profiles.js'
import { ApiError } from '../errors.js'
import { isJsonObject } from '../json.js'
import type { Mode } from '../schemas/index.js'

/** Whose events a `bula listen` secret signs: one simulator, merchant and mode. */
export interface ListenScope {
  baseUrl: string
  merchantId: string
  mode: Mode
}

/** The file's shape. Other fields are kept, so that what a newer bula adds survives an older one saving. */
interface SecretsFile {
  secrets: Record<string, string>
  [field: string]: unknown
}

/** The file as read, or undefined when it is not one; checked by hand, as the config file is (zod would be about a quarter of its start). */
function asSecretsFile(json: unknown): SecretsFile | undefined {
  if (!isJsonObject(json)) return undefined
  const secrets = json.secrets === undefined ? {} : json.secrets
  if (!isJsonObject(secrets) || !Object.values(secrets).every((secret) => typeof secret === 'string' && secret.startsWith('whsec_'))) return undefined
  return { ...json, secrets: secrets as Record<string, string> }
}

export const listenSecretsPath = (env: NodeJS.ProcessEnv = process.env): string => join(configDir(env), 'listen-secrets.json')

const scopeKey = (scope: ListenScope): string => `${scope.baseUrl} ${scope.merchantId} ${scope.mode}`

/**
 * The `whsec_` secret `bula listen` signs with for this scope, created and
 * saved on first use. It stays the same across restarts of listen and of the
 * simulator, so the receiver's configured secret keeps working. The file sits
 * beside the config (it holds secrets too: mode 0600 in a 0700 folder,
 * replaced atomically).
 */
export async function listenSecret(scope: ListenScope, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = listenSecretsPath(env)
  const stored = await readSecrets(file)
  const key = scopeKey(scope)
  const existing = stored.secrets[key]
  if (existing !== undefined) return existing
  const secret = `whsec_${randomBytes(24).toString('base64url')}`
  await writePrivateJson(file, { ...stored, secrets: { ...stored.secrets, [key]: secret } }, 'the listen secret')
  return secret
}

async function readSecrets(file: string): Promise<SecretsFile> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { secrets: {} }
    throw new ApiError(0, 'invalid_config', `Cannot read ${file}: ${(error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const parsed = asSecretsFile(json)
  if (!parsed) {
    // Deleting it only means new listen secrets, which the receivers then need.
    throw new ApiError(0, 'invalid_config', `${file} is not a bula listen-secrets file. Fix it or delete it.`)
  }
  return parsed
}

