import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceFormatter } from '../../src/cli/fields.js'
import { invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesGet extends BaseCommand<Invoice> {
  static override description = 'Show an Invoice: its status, customer, items, totals and hosted URL.'

  static override examples = ['<%= config.bin %> <%= command.id %> 12', '<%= config.bin %> <%= command.id %> 12 --json']

  static override args = {
    id: invoiceIdArg,
  }

  async run(): Promise<Invoice> {
    const { args, flags } = await this.parse(InvoicesGet)
    const client = await this.client(flags)
    const format = this.jsonEnabled() ? undefined : await invoiceFormatter(client, this.colors)
    const invoice = await client.getInvoice(args.id)
    if (format) this.log(format(invoice))
    return invoice
  }
}
