import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { bulaCommand, withLaunchedCommands } from '../../src/cli/launch-command.js'
import { parseDuration } from '../../src/duration.js'
import { usageError, usageParser } from '../../src/cli/usage.js'
import { checkWebhookReceiver, sendReadingStatusOnly, type WebhookCheckResult } from '../../src/webhooks/check.js'
import { printable } from '../../src/terminal-text.js'

const WHERE_SECRETS_COME_FROM =
  'A signing secret (whsec_...) is printed by `bula listen --print-secret` (for `bula listen`), ' +
  'or in the answer of `bula webhooks create` or `bula webhooks rotate` (for an endpoint).'

export default class WebhooksCheck extends BaseCommand<WebhookCheckResult> {
  static override summary = 'Test your webhook receiver: signatures, stale timestamps, replays, unknown fields and rotation.'

  static override description =
    'Sends URL six checkout_session.succeeded deliveries signed with --secret: a correct one (expects 2xx), ' +
    'a bad signature (4xx), a timestamp 10 minutes old (4xx), the first event again with the same id (2xx: ' +
    'acknowledge and deduplicate), one with fields the receiver does not know (2xx), and one with two signatures, ' +
    'a new secret\'s and yours, as during a rotation overlap (2xx). ' +
    'Exits 0 when every answer is as expected, 1 otherwise. Needs no simulator.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> http://localhost:4242/webhooks --secret whsec_...',
    'BULA_WEBHOOK_SECRET=whsec_... <%= config.bin %> <%= command.id %> http://localhost:4242/webhooks --json',
    '<%= config.bin %> <%= command.id %> https://staging.kaistore.fj/webhooks --secret whsec_... --timeout 10s',
  ]

  static override args = {
    url: Args.string({
      description: 'The receiver\'s address (http or https).',
      required: true,
      parse: usageParser(parseReceiverUrl),
    }),
  }

  static override flags = {
    secret: Flags.custom<string>({
      description: `The signing secret your receiver verifies with (default: BULA_WEBHOOK_SECRET). ${WHERE_SECRETS_COME_FROM}`,
      env: 'BULA_WEBHOOK_SECRET',
      parse: usageParser(parseSigningSecret),
    })(),
    timeout: Flags.custom<number>({
      description: 'Longest wait for each answer: a duration such as 5s or 500ms.',
      default: 5000,
      defaultHelp: async () => '5s',
      parse: usageParser(parseTimeout),
    })(),
  }

  async run(): Promise<WebhookCheckResult> {
    const { args, flags } = await this.parse(WebhooksCheck)
    // Not oclif's `required`: its "Missing required flag secret" says neither the variable nor where a secret is found.
    if (flags.secret === undefined) throw usageError(`Missing --secret (or BULA_WEBHOOK_SECRET). ${withLaunchedCommands(WHERE_SECRETS_COME_FROM)}`)
    const result = await checkWebhookReceiver({ url: args.url, secret: flags.secret, timeoutMs: flags.timeout, send: sendReadingStatusOnly })

    this.printTable(
      result.cases,
      [
        { header: 'CASE', value: (check) => check.name },
        { header: 'SENT', value: (check) => check.title },
        { header: 'EXPECTED', value: (check) => check.expected },
        { header: 'GOT', value: (check) => (check.status === null ? (check.error ?? 'no answer') : String(check.status)) },
        { header: 'LATENCY', value: (check) => `${check.latencyMs}ms` },
        { header: 'RESULT', value: (check) => (check.passed ? 'pass' : 'FAIL'), paint: (cell, check) => (check.passed ? this.colors.green(cell) : this.colors.red(cell)) },
      ],
      'No cases.',
    )
    const failed = result.cases.filter((check) => !check.passed)
    this.log()
    if (failed.length === 0) {
      this.log(this.colors.green(`All ${result.cases.length} cases passed.`))
    } else {
      this.log(this.colors.red(`${failed.length} of ${result.cases.length} cases failed:`))
      for (const check of failed) this.log(`  ${this.colors.bold(check.name)}: ${printable(check.hint ?? '')}`)
      // The result is still printed (as JSON with --json); the exit code tells scripts and CI.
      process.exitCode = 1
    }
    return result
  }
}

function parseReceiverUrl(input: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new Error(`"${input}" is not a URL: give the receiver's full address, e.g. http://localhost:4242/webhooks.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${input}" is not an http or https address.`)
  return url.href
}

function parseSigningSecret(input: string): string {
  if (!input.startsWith('whsec_')) {
    throw new Error(`The signing secret starts with whsec_: use the one \`${bulaCommand('listen')}\` prints or the endpoint's, not an API key.`)
  }
  return input
}

function parseTimeout(input: string): number {
  const ms = parseDuration(input)
  if (ms <= 0) throw new Error('--timeout must be more than 0, e.g. 5s.')
  return ms
}
