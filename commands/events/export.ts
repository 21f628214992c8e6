import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkStandardOutput, toJsonFileText, writeOutput } from '../../src/cli/files.js'
import { plural } from '../../src/plural.js'
import { exportActivityFixture, type ActivityFixture } from '../../src/fixtures/export.js'
import { printable } from '../../src/terminal-text.js'

export interface EventsExportResult extends ActivityFixture {
  /** Where the fixture was written; null when it was printed. */
  file: string | null
}

export default class EventsExport extends BaseCommand<EventsExportResult> {
  static override summary = 'Turn the recorded activity of the key\'s mode into a fixture that replays it.'

  static override description =
    'Reads the event log (every event, or the --limit newest) and writes the API calls that made those events, in ' +
    'order, as a fixture for `bula fixtures run`: each Checkout Session created as it was (amount or quote, ' +
    'metadata, URLs), then paid with the same outcome and Provider or cancelled; Invoices created, sent and paid; ' +
    'webhook endpoints registered or rotated; test Payouts requested. Steps refer to the objects they made by name, ' +
    'so the fixture replays on any merchant, making the same event types in the same order. Events that no API call ' +
    'can make are listed as skipped. Prints the fixture, or writes it to --out (kept if it exists, unless --force); ' +
    '--out - prints it as without --out, and the count of steps on stderr (not with --json).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --as-fixture --out fixtures/recorded.json',
    '<%= config.bin %> <%= command.id %> --as-fixture --limit 20 > last-20-events.json',
    '<%= config.bin %> fixtures run fixtures/recorded.json',
  ]

  static override flags = {
    'as-fixture': Flags.boolean({ description: 'Export as a fixture for `bula fixtures run` (the one format so far).', required: true }),
    limit: Flags.integer({ description: 'Only the newest N events (default: every event).', min: 1 }),
    out: Flags.string({ char: 'o', description: 'Write the fixture to this file instead of printing it; - for standard output.' }),
    force: Flags.boolean({ description: 'Overwrite --out if it exists.', dependsOn: ['out'] }),
  }

  async run(): Promise<EventsExportResult> {
    const { flags } = await this.parse(EventsExport)
    if (flags.out !== undefined) checkStandardOutput(flags.out, { given: 'using --out -', json: this.jsonEnabled() })
    const exported = await exportActivityFixture(await this.client(flags), { limit: flags.limit })
    for (const { eventId, type, reason } of exported.skipped) this.warn(printable(`Skipped ${type} ${eventId}: ${reason}.`))
    if (flags.out === undefined) {
      this.log(toJsonFileText(exported.fixture).trimEnd())
      return { ...exported, file: null }
    }
    await writeOutput(flags.out, toJsonFileText(exported.fixture), { force: flags.force, param: 'out' })
    this.logWrote(flags.out, `${plural(exported.fixture.steps.length, 'step')} remaking ${exported.events - exported.skipped.length} of ${plural(exported.events, 'event')}`)
    return { ...exported, file: flags.out }
  }
}
