import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { parseInstant } from '../../src/cli/instant.js'
import { formatTime } from '../../src/cli/output.js'
import { usageParser } from '../../src/cli/usage.js'
import { SESSION_STATUSES } from '../../src/schemas/enums.js'
import type { CheckoutSessionList, ListCheckoutSessionsQuery } from '../../src/schemas/index.js'
import { formatFjd } from '../../src/money.js'

export default class SessionsList extends BaseCommand<CheckoutSessionList> {
  static override summary = 'List Checkout Sessions, newest first.'

  static override description =
    'Shows one page (--limit, default 10) and the --cursor of the next one, or every page with --all. ' +
    '--from and --to bound the creation time, both inclusive.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --status succeeded --limit 50',
    '<%= config.bin %> <%= command.id %> --from 2026-01-01 --to 2026-01-31T23:59:59Z --all',
    '<%= config.bin %> <%= command.id %> --cursor eyJ... --json',
  ]

  static override flags = {
    limit: Flags.integer({ description: 'Sessions per page, 1 to 100 (default 10).', min: 1, max: 100 }),
    status: Flags.option({ description: 'Only sessions in this status.', options: SESSION_STATUSES })(),
    from: Flags.custom<number>({
      description: 'Created at or after this time: ISO 8601 (2026-01-01T09:00:00Z) or Unix milliseconds.',
      parse: usageParser(parseInstant),
    })(),
    to: Flags.custom<number>({
      description: 'Created at or before this time: ISO 8601 or Unix milliseconds.',
      parse: usageParser(parseInstant),
    })(),
    cursor: Flags.string({ description: 'Start after this page: the nextCursor of the previous page.' }),
    all: Flags.boolean({ description: 'Follow nextCursor to the last page and show every session (--limit sets the page size).' }),
  }

  async run(): Promise<CheckoutSessionList> {
    const { flags } = await this.parse(SessionsList)
    const query: ListCheckoutSessionsQuery = { limit: flags.limit, status: flags.status, from: flags.from, to: flags.to, cursor: flags.cursor }
    const client = await this.client(flags)
    const list = flags.all ? await client.listAllCheckoutSessions(query) : await client.listCheckoutSessions(query)
    this.printTable(
      list.data,
      [
        { header: 'ID', value: (session) => session.id },
        { header: 'STATUS', value: (session) => session.status },
        { header: 'AMOUNT', value: (session) => formatFjd(session.amount) },
        { header: 'CREATED', value: (session) => formatTime(session.createdAt) },
        { header: 'EXPIRES', value: (session) => formatTime(session.expiresAt) },
      ],
      'No Checkout Sessions.',
    )
    if (list.nextCursor !== null) this.printNotice(`More sessions follow: add --cursor ${list.nextCursor} (or --all).`)
    return list
  }
}
