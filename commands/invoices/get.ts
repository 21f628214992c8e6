import { BaseCommand } from '../../src/cli/base-command.js'
import { formatInvoice } from '../../src/cli/fields.js'
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
    const invoice = await (await this.client(flags)).getInvoice(args.id)
    this.log(formatInvoice(invoice, this.colors))
    return invoice
  }
}
