import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { formatTime } from '../../src/cli/output.js'
import type { ListPayoutsQuery, PayoutList } from '../../src/schemas/index.js'
import { formatFjd } from '../../src/money.js'

export default class PayoutsList extends BaseCommand<PayoutList> {
  static override summary = 'List Payouts of the key\'s mode, oldest first.'

  static override description =
    'Shows one page (--limit, default 10) and the --starting-after of the next one, or every page with --all.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --limit 50 --starting-after po_4fQ...',
    '<%= config.bin %> <%= command.id %> --all --json',
  ]

  static override flags = {
    limit: Flags.integer({ description: 'Payouts per page, 1 to 100 (default 10).', min: 1, max: 100 }),
    'starting-after': Flags.string({ description: 'Start after this Payout id: the newer Payouts follow.' }),
    all: Flags.boolean({ description: 'Follow every page to the newest Payout (--limit sets the page size).' }),
  }

  async run(): Promise<PayoutList> {
    const { flags } = await this.parse(PayoutsList)
    const query: ListPayoutsQuery = { limit: flags.limit, starting_after: flags['starting-after'] }
    const client = await this.client(flags)
    const list = flags.all ? await client.listAllPayouts(query) : await client.listPayouts(query)
    this.printTable(
      list.data,
      [
        { header: 'ID', value: (payout) => payout.id },
        { header: 'STATUS', value: (payout) => payout.status },
        { header: 'AMOUNT', value: (payout) => formatFjd(payout.amount) },
        { header: 'RAIL', value: (payout) => payout.rail },
        { header: 'CREATED', value: (payout) => formatTime(payout.createdAt) },
        { header: 'PAID', value: (payout) => formatTime(payout.paidAt) },
      ],
      'No Payouts.',
    )
    const last = list.data.at(-1)
    if (list.hasMore && last) this.printNotice(`More payouts follow: add --starting-after ${last.id} (or --all).`)
    return list
  }
}
