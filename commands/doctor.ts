import { Flags } from '@oclif/core'
import { BaseCommand } from '../src/cli/base-command.js'
import { usageParser } from '../src/cli/usage.js'
import { parseDuration } from '../src/duration.js'
import type { DoctorReport } from '../src/schemas/index.js'
import { formatDoctorReport } from '../src/ui/faults-and-doctor.js'

function parseSince(input: string): number {
  const ms = parseDuration(input)
  if (ms <= 0) throw new Error('--since must be more than 0, e.g. 1h.')
  return ms
}

export default class Doctor extends BaseCommand<DoctorReport> {
  static override summary = 'Review your integration from what it actually did: retries, idempotency keys, webhooks, polling, rate limits, live readiness.'

  static override description =
    'Reads the request log, events and deliveries of the key\'s merchant and mode, and reports each problem with the rule it ' +
    'breaks, the evidence (request ids, event ids, times on the merchant\'s clock) and the fix: creates retried with a new ' +
    'Idempotency-Key, a key reused for another request, webhook endpoints that answered non-2xx, did not answer or took over ' +
    '5 s, endpoints never verified, sessions created with no endpoint, one session fetched more than 10 times a minute, 429s ' +
    'and whether Retry-After was honoured, and live readiness (verification, payout destination, receipts, http:// URLs). ' +
    'It reviews your integration\'s own calls: the bula CLI\'s (such as `bula sessions create`) are left out, and the ' +
    'report says how many; so are the Checkout Sessions they made and those the simulator opens to pay an invoice. ' +
    'Exits 1 when a finding is an error, 0 otherwise, so CI can run it after your tests. --since looks back that far; ' +
    'without it, everything the simulator still has (the request log keeps the last 1000 calls, in memory).'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --since 15m',
    '<%= config.bin %> exec -- sh -c "npm test && npx bula doctor --json > doctor.json"',
  ]

  static override flags = {
    since: Flags.custom<number>({ description: 'Look back this far on the merchant\'s clock: 30m, 2h, 1d.', parse: usageParser(parseSince) })(),
  }

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor)
    const report = await (await this.client(flags)).doctor({ sinceMs: flags.since })
    this.log(formatDoctorReport(report, this.colors))
    // The report is printed either way (as JSON with --json); the exit code tells CI.
    if (report.errors > 0) process.exitCode = 1
    return report
  }
}
