import { Command, Errors, Flags, ux } from '@oclif/core'
import chalk, { chalkStderr } from 'chalk'
import { BulaClient } from '../client/bula-client.js'
import { maskKey, resolveConnection, type Connection, type ResolveConnectionOptions } from '../config/profiles.js'
import { ApiError } from '../errors.js'
import { assertBaseUrlIsRoot, maskUrlCredentials } from './base-url.js'
import { describeApiKeyOrigin, describeBaseUrlOrigin, formatApiError, toErrorReport, withApiKeyOrigin, withConnectionOrigin } from './error-report.js'
import { STANDARD_STREAM } from './files.js'
import { bulaCommand, withLaunchedCommands } from './launch-command.js'
import { createColors, formatFields, formatTable, openInBrowser, printJson, type Column } from './output.js'
import { suggestFlags, suggestFlagValue } from './suggest.js'
import { printable } from '../terminal-text.js'

/** The connection flags every command accepts (see BaseCommand.baseFlags). */
export interface GlobalFlags {
  'api-key'?: string
  'base-url'?: string
  profile?: string
  verbose?: boolean
}

/**
 * The base of every bula command. A command parses its flags, makes one
 * client call, prints a human rendering with the helpers below and returns
 * its typed result, which oclif prints as JSON instead when --json is given
 * (the human output is then suppressed).
 *
 * Failures: an ApiError (from the simulator or a local check) prints
 * `code: message` on stderr and exits 1; with --json every failure prints the
 * error envelope `{"error":{"code","message",...}}` on stdout instead, so
 * stdout is always one JSON document. Usage errors exit 2.
 */
export abstract class BaseCommand<T> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    'api-key': Flags.string({
      description: 'API key to use (default: BULA_API_KEY, then the profile).',
      helpGroup: 'GLOBAL',
    }),
    'base-url': Flags.string({
      description: 'Simulator address (default: BULA_BASE_URL, then the profile, then http://127.0.0.1:4111).',
      helpGroup: 'GLOBAL',
    }),
    profile: Flags.string({
      description: 'Profile to use (default: BULA_PROFILE, then the current profile, then "default").',
      helpGroup: 'GLOBAL',
    }),
    verbose: Flags.boolean({
      description: 'Log each HTTP request, its answer and any retry on stderr.',
      helpGroup: 'GLOBAL',
    }),
  }

  protected readonly colors = createColors(process.env, chalk.level)
  protected readonly stderrColors = createColors(process.env, chalkStderr.level)

  /** Where the address of the last connection resolved came from, which a connection_failed then names. */
  private baseUrlOrigin: string | undefined
  /** Where its key came from, which an invalid_api_key then names. */
  private apiKeyOrigin: string | undefined

  abstract override run(): Promise<T>

  /** The keys and address these flags, the environment and the profile point at (a publishable key only for the commands that take one). */
  protected async connection(flags: GlobalFlags & { 'publishable-key'?: string }, options?: ResolveConnectionOptions): Promise<Connection> {
    const connection = await resolveConnection(
      { apiKey: flags['api-key'], publishableKey: flags['publishable-key'], baseUrl: flags['base-url'], profile: flags.profile },
      options,
    )
    this.baseUrlOrigin = describeBaseUrlOrigin(connection)
    this.apiKeyOrigin = describeApiKeyOrigin(connection)
    assertBaseUrlIsRoot(connection.baseUrl, this.baseUrlOrigin)
    return connection
  }

  protected async client(flags: GlobalFlags): Promise<BulaClient> {
    const { baseUrl, apiKey } = await this.connection(flags)
    // A line quotes the server's X-Request-Id, whose bytes above 0x7F arrive as C1 controls: printable() first.
    const log = flags.verbose ? (line: string) => ux.stderr(this.stderrColors.dim(printable(line))) : undefined
    return new BulaClient({ baseUrl, apiKey, userAgent: this.config.userAgent, log })
  }

  protected printFields(fields: ReadonlyArray<readonly [string, string]>): void {
    this.log(formatFields(fields, this.colors))
  }

  /** On stderr with `toStderr`: for a command whose standard output holds what it wrote (`--out -`). */
  protected printTable<Row>(rows: readonly Row[], columns: ReadonlyArray<Column<Row>>, whenEmpty: string, { toStderr = false } = {}): void {
    this.logTo(toStderr, rows.length === 0 ? whenEmpty : formatTable(rows, columns, toStderr ? this.stderrColors : this.colors))
  }

  /** A human line on stdout, or on stderr when standard output holds what the command wrote (`--out -`). */
  protected logTo(toStderr: boolean, text: string): void {
    if (toStderr) this.logToStderr(text)
    else this.log(text)
  }

  /**
   * Opens `url` in the browser on a terminal; prints it instead with
   * `print`, with --json, when stdout is a pipe (a script wants the URL, not
   * a window), or when no browser can be started.
   */
  protected async openOrPrint(url: string, print: boolean): Promise<void> {
    // The URL comes from the server: shown printable(), though the browser gets it as it is.
    if (process.stdout.isTTY && !print && !this.jsonEnabled()) {
      try {
        await openInBrowser(url)
        this.log(`Opened ${printable(url)} in the browser.`)
        return
      } catch (error) {
        this.warn(`Could not start a browser (${printable(error instanceof Error ? error.message : String(error))}); open the URL yourself:`)
      }
    }
    this.log(printable(url))
  }

  /**
   * When `masked` (a rotated or revoked key, as the API shows it) is the key
   * this CLI authenticates with, what to do about it, for `when` it stops
   * working: otherwise every later command fails with invalid_api_key.
   */
  protected async ownKeyAdvice(flags: GlobalFlags, masked: string, when: string, replacement?: string): Promise<string | undefined> {
    const { apiKey, apiKeyFrom, profileName } = await this.connection(flags)
    if (apiKey === undefined || maskKey(apiKey) !== masked) return undefined
    const next = replacement ?? '<another secret key>'
    if (apiKeyFrom === 'profile') {
      return `That is the key this CLI uses (profile "${profileName}"), and it stops working ${when}. Save ${replacement ? 'the new one' : 'another'}: ${bulaCommand(`login --api-key ${next}`)}`
    }
    const where = apiKeyFrom === 'environment' ? 'BULA_API_KEY' : '--api-key'
    return `That is the key this CLI uses (${where}), and it stops working ${when}. Use ${replacement ? 'the new one' : 'another'} in ${where} from now on.`
  }

  /** A line for the reader's attention, such as "shown once" warnings. */
  protected printNotice(text: string): void {
    this.log(this.colors.yellow(text))
  }

  /**
   * "Wrote `what` to `file`.", on stderr when `file` is `-` (files.ts): standard output then holds what was
   * written, and nothing else.
   */
  protected logWrote(file: string, what: string): void {
    if (file === STANDARD_STREAM) this.logToStderr(`Wrote ${what} to standard output.`)
    else this.log(`Wrote ${what} to ${file}.`)
  }

  protected override logJson(json: unknown): void {
    printJson(json)
  }

  protected override async catch(caught: Errors.CLIError | Error): Promise<unknown> {
    if (caught instanceof Errors.ExitError) throw caught
    suggestFlags(caught)
    suggestFlagValue(caught)
    const error = withoutUrlCredentials(withCommandsAsLaunched(withApiKeyOrigin(withConnectionOrigin(caught, this.baseUrlOrigin), this.apiKeyOrigin)))
    const report = toErrorReport(error)
    if (this.jsonEnabled()) {
      this.logJson(report.envelope)
      process.exitCode = report.exitCode
      return undefined
    }
    if (error instanceof ApiError) {
      // No stack trace: the code and message are the whole story.
      ux.stderr(formatApiError(error, this.stderrColors))
      process.exitCode = report.exitCode
      return undefined
    }
    // Usage and unexpected errors: oclif prints them with its help hints.
    return super.catch(error)
  }
}

/** The error with the commands its message quotes as this CLI was started: the simulator and the client library write them not knowing how. */
function withCommandsAsLaunched<E>(error: E): E | ApiError {
  if (!(error instanceof ApiError) || withLaunchedCommands(error.message) === error.message) return error
  return error.withMessage(withLaunchedCommands(error.message))
}

/** The error with the credentials of any URL in its message masked: the client names the base URL it could not reach, as given. */
function withoutUrlCredentials<E>(error: E): E | ApiError {
  if (!(error instanceof ApiError) || maskUrlCredentials(error.message) === error.message) return error
  return error.withMessage(maskUrlCredentials(error.message))
}
