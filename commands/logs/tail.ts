import { Flags, ux } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { usageParser } from '../../src/cli/usage.js'
import { jsonLinesTailReporter, plainTailReporter } from '../../src/logs/report.js'
import { parsePathFilter, parseStatusFilter, tailRequestLog } from '../../src/logs/tail.js'
import { onStopSignal } from '../../src/cli/stop-signals.js'

export default class LogsTail extends BaseCommand<undefined> {
  static override summary = 'Show the API calls made with the key\'s merchant and mode, then follow new ones.'

  static override description =
    'Prints the most recent matching calls (--limit, default 20), oldest first, then each new one as it finishes, until ' +
    'Ctrl-C: time on the merchant\'s clock, mode, method, path, status, latency, idempotency key and request id. ' +
    'Reconnects when the simulator stops or restarts, and shows the calls made meanwhile first. The simulator keeps ' +
    'the last 1000 calls per merchant, in memory; reads of the log itself are left out. With --json, one JSON object ' +
    'per line ("request", "disconnected", "reconnected"). --no-follow prints the recent calls and exits.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --status 4xx',
    '<%= config.bin %> <%= command.id %> --path /v1/checkout-sessions --status 409',
    '<%= config.bin %> <%= command.id %> --no-follow --limit 50 --json',
  ]

  static override flags = {
    status: Flags.custom<string>({ description: 'Only calls with this status (404) or class (4xx).', parse: usageParser(parseStatusFilter) })(),
    path: Flags.custom<string>({ description: 'Only calls whose path starts with this, e.g. /v1/invoices.', parse: usageParser(parsePathFilter) })(),
    limit: Flags.integer({ description: 'How many recent calls to show first, 1 to 1000.', min: 1, max: 1000, default: 20 }),
    follow: Flags.boolean({ description: 'Go on with new calls as they finish (--no-follow: print the recent ones and exit).', default: true, allowNo: true }),
  }

  async run(): Promise<undefined> {
    const { flags } = await this.parse(LogsTail)
    const client = await this.client(flags)
    const write = (line: string): void => ux.stdout(line)
    const reporter = this.jsonEnabled() ? jsonLinesTailReporter(write) : plainTailReporter(write, this.colors)
    const stopped = new AbortController()
    const stop = (): void => stopped.abort()
    const forgetSignals = onStopSignal(stop)
    try {
      if (flags.follow && !this.jsonEnabled()) ux.stderr('Following the request log; Ctrl-C stops.')
      await tailRequestLog({
        client,
        filter: { status: flags.status, path: flags.path },
        recent: flags.limit,
        follow: flags.follow,
        signal: stopped.signal,
        reporter,
      })
    } finally {
      forgetSignals()
    }
    return undefined
  }

  // One line per object, so that an error after some lines keeps the output JSON lines.
  protected override logJson(json: unknown): void {
    ux.stdout(JSON.stringify(json))
  }
}
