import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { InvoiceList, ListInvoicesQuery } from '../../src/schemas/index.js'
import { formatFjd } from '../../src/money.js'
import { formatDay } from '../../src/time.js'

export default class InvoicesList extends BaseCommand<InvoiceList> {
  static override summary = 'List Invoices, newest first (Business accounts).'

  static override description =
    'Shows one page (--limit, default 10) and the --starting-after of the next one, or every page with --all.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --limit 50 --starting-after 120',
    '<%= config.bin %> <%= command.id %> --all --json',
  ]

  static override flags = {
    limit: Flags.integer({ description: 'Invoices per page, 1 to 100 (default 10).', min: 1, max: 100 }),
    'starting-after': Flags.integer({ description: 'Start after this Invoice id: the older Invoices follow.', min: 1 }),
    all: Flags.boolean({ description: 'Follow every page to the oldest Invoice (--limit sets the page size).' }),
  }

  async run(): Promise<InvoiceList> {
    const { flags } = await this.parse(InvoicesList)
    const query: ListInvoicesQuery = { limit: flags.limit, starting_after: flags['starting-after'] }
    const client = await this.client(flags)
    const list = flags.all ? await client.listAllInvoices(query) : await client.listInvoices(query)
    this.printTable(
      list.data,
      [
        { header: 'ID', value: (invoice) => String(invoice.id) },
        { header: 'NUMBER', value: (invoice) => invoice.number ?? '-' },
        { header: 'STATUS', value: (invoice) => (invoice.overdue ? `${invoice.status} (overdue)` : invoice.status) },
        { header: 'TOTAL', value: (invoice) => formatFjd(invoice.total) },
        { header: 'DUE', value: (invoice) => formatDay(invoice.dueDate) },
        { header: 'CUSTOMER', value: (invoice) => invoice.customerName },
      ],
      'No Invoices.',
    )
    const last = list.data.at(-1)
    if (list.hasMore && last) this.printNotice(`More invoices follow: add --starting-after ${last.id} (or --all).`)
    return list
  }
}
