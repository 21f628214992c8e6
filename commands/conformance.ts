import { Flags, ux } from '@oclif/core'
import { chalkStderr } from 'chalk'
import { createColors } from '../src/cli/output.js'
import { plural } from '../src/plural.js'
import { BaseCommand } from '../src/cli/base-command.js'
import { maskUrlCredentials } from '../src/cli/base-url.js'
import { usageError, usageParser } from '../src/cli/usage.js'
import { parseDuration } from '../src/duration.js'
import { runConformance, selectCases, type CaseResult, type ConformanceResult } from '../src/conformance/index.js'
import { printable } from '../src/terminal-text.js'

export default class Conformance extends BaseCommand<ConformanceResult> {
  static override summary = 'Check a service or simulator against the interface spec, rule by rule, and record or compare its answers.'

  static override description =
    'Runs the conformance suite over HTTP only: each case checks one or more rules of the service interface and is named ' +
    'section/rule (checkout-sessions/amount-max, idempotency/replay, webhooks/signature). Against a target with the ' +
    'simulator\'s /_sim controls each case signs up a merchant of its own; against any other target the cases use ' +
    '--api-key (a test key) and --publishable-key, and cases that need /_sim (the clock, the customer stand-in, live ' +
    'keys) are skipped with the reason, never failed. Webhook cases need a receiver the target can reach: against a ' +
    'local target the suite starts one on loopback; otherwise give --webhook-url, a public URL that forwards to ' +
    '--webhook-port. --record DIR saves each case\'s normalized exchanges (ids, times, URLs, secrets and signatures ' +
    'as placeholders) as one JSON file per case; --compare DIR runs again and reports every difference by case and ' +
    'JSON path. Exits 1 when a case fails or a difference is found. See docs/conformance.md.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --only webhooks --only idempotency/replay',
    '<%= config.bin %> <%= command.id %> --record conformance/baseline',
    '<%= config.bin %> <%= command.id %> --compare conformance/baseline --json',
    '<%= config.bin %> <%= command.id %> --base-url https://api.example.fj --api-key sk_test_... --publishable-key pk_test_... --webhook-url https://abc.tunnel.example --webhook-port 4242',
  ]

  static override flags = {
    'publishable-key': Flags.string({
      description: 'A pk_test_ key of the same merchant as --api-key (default: BULA_PUBLISHABLE_KEY, or the profile\'s, beside its secret key).',
    }),
    only: Flags.string({
      description: 'Run only this section (webhooks) or case (webhooks/signature); repeatable, or comma-separated.',
      multiple: true,
      delimiter: ',',
    }),
    record: Flags.string({ description: 'Save each case\'s normalized exchanges as DIR/<section>/<rule>.json.', helpValue: 'DIR' }),
    compare: Flags.string({ description: 'Compare each case\'s normalized exchanges with the recordings in DIR.', helpValue: 'DIR', exclusive: ['record'] }),
    'webhook-url': Flags.string({ description: 'A public URL the target can reach that forwards to the suite\'s receiver on --webhook-port.' }),
    'webhook-port': Flags.integer({ description: 'The local port of the suite\'s webhook receiver (default: any free port).', min: 0, max: 65_535 }),
    'delivery-timeout': Flags.custom<number>({
      description: 'How long to wait for each webhook delivery: a duration such as 5s.',
      default: 5000,
      defaultHelp: async () => '5s',
      parse: usageParser((input) => {
        const ms = parseDuration(input)
        if (ms <= 0) throw new Error('--delivery-timeout must be more than 0, e.g. 5s.')
        return ms
      }),
    })(),
  }

  async run(): Promise<ConformanceResult> {
    const { flags } = await this.parse(Conformance)
    // A name that is no case or section is a mistake on the command line (exit 2), found before anything is sent or printed.
    try {
      selectCases(flags.only)
    } catch (error) {
      throw usageError((error as Error).message)
    }
    const { baseUrl, apiKey, publishableKey } = await this.connection(flags)
    const json = this.jsonEnabled()
    const stderrColors = createColors(process.env, chalkStderr.level)
    if (!json) this.log(this.colors.dim(`Conformance of ${maskUrlCredentials(baseUrl)}`))
    const result = await runConformance({
      baseUrl,
      apiKey,
      publishableKey,
      only: flags.only,
      record: flags.record,
      compare: flags.compare,
      webhookUrl: flags['webhook-url'],
      webhookPort: flags['webhook-port'],
      deliveryTimeoutMs: flags['delivery-timeout'],
      log: flags.verbose ? (line) => ux.stderr(stderrColors.dim(line)) : undefined,
      onCase: json ? undefined : (result) => this.log(this.caseLine(result)),
    })
    const { passed, failed, skipped } = result.summary
    this.log('')
    if (!result.sim) this.log(this.colors.dim('The target has no /_sim: cases that need the simulator\'s controls were skipped.'))
    this.log(`${this.colors.green(`${passed} passed`)}, ${failed > 0 ? this.colors.red(`${failed} failed`) : '0 failed'}, ${skipped} skipped in ${(result.durationMs / 1000).toFixed(1)}s.`)
    if (result.recorded) this.log(`Recorded ${plural(result.cases.length, 'case')} in ${result.recorded}.`)
    if (result.differences) {
      if (result.differences.length === 0) this.log(this.colors.green(`No difference from ${flags.compare}.`))
      else {
        this.log(this.colors.red(`${plural(result.differences.length, 'difference')} from ${flags.compare}:`))
        for (const difference of result.differences) this.log(`  ${this.colors.bold(printable(difference.case))}: ${printable(difference.message)}`)
      }
    }
    // The result is printed either way (JSON with --json); the exit code tells scripts and CI.
    if (!result.passed) process.exitCode = 1
    return result
  }

  private caseLine(result: CaseResult): string {
    if (result.outcome === 'pass') return `${this.colors.green('pass')} ${result.id}`
    if (result.outcome === 'skip') return `${this.colors.yellow('skip')} ${result.id}: ${printable(result.reason ?? '')}`
    return `${this.colors.red('FAIL')} ${result.id}: ${printable(result.reason ?? '')}`
  }
}
