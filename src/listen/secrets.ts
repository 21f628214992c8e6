import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
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
  const key = scopeKey(scope)
  const existing = (await readSecrets(file)).secrets[key]
  if (existing !== undefined) return existing
  // Two listens started together both found no secret and each saved its own: one signed with a secret that the
  // file (and --print-secret) no longer had. The read and the write of a new one are made under a lock.
  return withFileLock(`${file}.lock`, async () => {
    const stored = await readSecrets(file)
    const saved = stored.secrets[key]
    if (saved !== undefined) return saved
    const secret = `whsec_${randomBytes(24).toString('base64url')}`
    await writePrivateJson(file, { ...stored, secrets: { ...stored.secrets, [key]: secret } }, 'the listen secret')
    return secret
  })
}

/** A lock older than this was left by a process that died holding it: taking it over loses nothing. */
const STALE_LOCK_MS = 10_000

/** Runs `fn` while holding `lockFile` (created exclusively, removed after), waiting up to a few seconds for another holder. */
async function withFileLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      // The config folder, as writePrivateJson makes it: on first use it does not exist yet.
      await mkdir(dirname(lockFile), { recursive: true, mode: 0o700 })
      await writeFile(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      break
    } catch (error) {
      // A folder that takes no lock takes no secret either: the write says so, naming the file and BULA_CONFIG_DIR.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return fn()
      const age = await stat(lockFile).then((info) => Date.now() - info.mtimeMs, () => 0)
      if (age > STALE_LOCK_MS || attempt === 100) await rm(lockFile, { force: true })
      else await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  try {
    return await fn()
  } finally {
    await rm(lockFile, { force: true })
  }
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

