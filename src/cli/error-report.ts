import { Errors } from '@oclif/core'
import type { ChalkInstance } from 'chalk'
import { DEFAULT_BASE_URL, type Connection } from '../config/profiles.js'
import { ApiError, type ErrorEnvelope } from '../errors.js'
import { printable } from '../terminal-text.js'
import { bulaCommand } from './launch-command.js'
import { USAGE_EXIT_CODE } from './usage.js'

/** Exit code of a failed API call or local failure (file, config, connection). */
const FAILURE_EXIT_CODE = 1

/** The shell's exit code for a process ended by Ctrl-C (128 + SIGINT's 2). */
const INTERRUPTED_EXIT_CODE = 130

/** The user pressed Ctrl-C at a question: one line, exit 130, `interrupted` with --json. */
export class InterruptedError extends Errors.CLIError {
  constructor(message: string) {
    super(message, { exit: INTERRUPTED_EXIT_CODE })
  }
}

/** What a failed command prints with --json (on stdout) and the code it exits with. */
export interface ErrorReport {
  envelope: ErrorEnvelope
  exitCode: number
}

/**
 * Every failure as the API's error envelope, so a script reading --json
 * output branches on `error.code` the same way whether the simulator or the
 * CLI itself refused: ApiError keeps its code, a Ctrl-C at a question is
 * `interrupted` (exit 130), a bad command line is `invalid_usage` (exit 2),
 * anything else `unexpected_error`.
 */
export function toErrorReport(error: unknown): ErrorReport {
  if (error instanceof ApiError) return { envelope: error.toEnvelope(), exitCode: FAILURE_EXIT_CODE }
  const message = error instanceof Error ? error.message : String(error)
  if (error instanceof InterruptedError) {
    return { envelope: { error: { code: 'interrupted', message } }, exitCode: INTERRUPTED_EXIT_CODE }
  }
  if (error instanceof Errors.CLIError) {
    return {
      envelope: { error: { code: 'invalid_usage', message: oneLineUsage(message) } },
      exitCode: error.oclif.exit ?? USAGE_EXIT_CODE,
    }
  }
  return { envelope: { error: { code: 'unexpected_error', message } }, exitCode: FAILURE_EXIT_CODE }
}

/**
 * An oclif flag error as one line for --json: `Parsing --metadata: Invalid
 * metadata "bad": use key=value…`, without the line breaks, tab and "See
 * more help with --help" that its terminal form puts around the message.
 */
function oneLineUsage(message: string): string {
  return message
    .replace(/\s*See more help with --help\s*$/, '')
    .replace(/^(Parsing --[\w-]+)\s*\n\s*/, '$1: ')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
}

/**
 * The human form of an ApiError: `code: message (param: x)`, each part
 * printable(), since another server (a BULA_BASE_URL of someone else's)
 * writes them.
 */
export function formatApiError(error: ApiError, colors: ChalkInstance): string {
  const param = error.param === undefined ? '' : ` (param: ${printable(error.param)})`
  return `${colors.red(printable(error.code))}: ${printable(error.message)}${param}`
}

/**
 * A broken connection, an answer that never came or a server fault may hide
 * a change that was made after all; only a retry with the same key is sure
 * not to make it twice.
 */
export function withRetryHint(error: unknown, idempotencyKey: string, possibleChange: string): unknown {
  if (!(error instanceof ApiError) || (error.code !== 'network_error' && error.code !== 'timeout' && error.status < 500)) return error
  const hint = ` ${possibleChange}: retry with --idempotency-key ${idempotencyKey}.`
  return error.withMessage(error.message + hint)
}

/**
 * Where the simulator's address in `connection` came from. The default
 * address is called that, whether or not the profile holds it too.
 */
export function describeBaseUrlOrigin({ baseUrl, baseUrlFrom, profileName, baseUrlProfile }: Pick<Connection, 'baseUrl' | 'baseUrlFrom' | 'profileName' | 'baseUrlProfile'>): string {
  if (baseUrlFrom === 'flag') return 'That address came from --base-url.'
  if (baseUrlFrom === 'environment') return 'That address came from BULA_BASE_URL.'
  if (baseUrlFrom === 'profile' && baseUrl !== DEFAULT_BASE_URL) {
    const from = baseUrlProfile ?? profileName
    if (from !== profileName) return `That address came from the current profile "${from}", as profile "${profileName}" is new; --base-url points it at another simulator.`
    return `That address came from profile "${profileName}"; --profile or --base-url points the CLI at another simulator.`
  }
  return 'That is the default address; --base-url, BULA_BASE_URL or --profile points the CLI at another simulator.'
}

/**
 * connection_failed names the address tried and how to start a simulator
 * there; `origin` (describeBaseUrlOrigin) adds where the address came from,
 * so that a stale BULA_BASE_URL or the profile of another simulator is found.
 */
export function withConnectionOrigin<E>(error: E, origin: string | undefined): E | ApiError {
  if (!(error instanceof ApiError) || error.code !== 'connection_failed' || origin === undefined) return error
  return error.withMessage(`${error.message} ${origin}`)
}

/**
 * Where the key of `connection` came from, for an invalid_api_key: a profile
 * keeps the key of the simulator that saved it, and one started afresh
 * (`--memory`, a new data file) has new keys, which it saves in the profile.
 * A profile's key sent to another address (--base-url, BULA_BASE_URL) is
 * said to be that: running the command again would not help.
 */
export function describeApiKeyOrigin({
  apiKeyFrom,
  profileName,
  baseUrl,
  baseUrlFrom,
  apiKeyBaseUrl,
}: Pick<Connection, 'apiKeyFrom' | 'profileName' | 'baseUrl' | 'baseUrlFrom' | 'apiKeyBaseUrl'>): string | undefined {
  if (apiKeyFrom === 'flag') return 'That key came from --api-key.'
  if (apiKeyFrom === 'environment') return 'That key came from BULA_API_KEY.'
  if (apiKeyFrom === 'profile') {
    const addressFrom = baseUrlFrom === 'flag' ? '--base-url' : baseUrlFrom === 'environment' ? 'BULA_BASE_URL' : undefined
    if (addressFrom !== undefined && apiKeyBaseUrl !== undefined && withoutTrailingSlash(apiKeyBaseUrl) !== withoutTrailingSlash(baseUrl)) {
      return (
        `That key is profile "${profileName}"'s, saved for the simulator at ${apiKeyBaseUrl}, not the one at ${baseUrl} (from ${addressFrom}): ` +
        'name that simulator\'s profile with --profile, or give its key with --api-key.'
      )
    }
    return (
      `That key came from profile "${profileName}". If it was revoked or rotated (\`${bulaCommand('keys revoke')}\`, \`${bulaCommand('keys rotate')}\` and ` +
      `72 hours), save a working key with \`${bulaCommand('login --api-key')}\`; if a simulator was started afresh (\`${bulaCommand('serve --memory')}\`, ` +
      'a new data file), it saved its new keys there: run the command again.'
    )
  }
  return undefined
}

const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '')

/** invalid_api_key with `origin` (describeApiKeyOrigin) added, so that a stale profile or variable is found. */
export function withApiKeyOrigin<E>(error: E, origin: string | undefined): E | ApiError {
  if (!(error instanceof ApiError) || error.code !== 'invalid_api_key' || origin === undefined) return error
  return error.withMessage(`${error.message} ${origin}`)
}
