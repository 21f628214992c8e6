import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceFormatter } from '../../src/cli/fields.js'
import { invoiceFieldFlags, invoiceIdArg, updateInvoiceRequest } from '../../src/cli/invoice-inputs.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesEdit extends BaseCommand<Invoice> {
  static override summary = 'Change a draft Invoice, as the dashboard does.'

  static override description =
    'Only the fields given change; --item replaces all the items (give each one again). --tax replaces the whole ' +
    'tax line, and --clear-* removes the e-mail, the tax line or the invoice\'s own VAT number (settings\' one is printed then). A sent Invoice cannot be edited ' +
    '(invalid_state): void it and create another. The FJ$5,000.00 cap is checked when the draft is sent.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 12 --due 2027-01-31',
    '<%= config.bin %> <%= command.id %> 12 --item "Kava bowl:3:45.50" --item "Tanoa:1:180" --tax VAT:12.5',
    '<%= config.bin %> <%= command.id %> 12 --clear-tax --clear-vat-number --json',
  ]

  static override args = { id: invoiceIdArg }

  static override flags = {
    ...invoiceFieldFlags,
    'clear-email': Flags.boolean({ description: 'Remove the customer e-mail.', exclusive: ['email'] }),
    'clear-tax': Flags.boolean({ description: 'Remove the tax line.', exclusive: ['tax'] }),
    'clear-vat-number': Flags.boolean({ description: 'Remove the invoice\'s own VAT number, so it shows the one in settings.', exclusive: ['vat-number'] }),
  }

  async run(): Promise<Invoice> {
    const { args, flags } = await this.parse(InvoicesEdit)
    const changes = updateInvoiceRequest(flags)
    const client = await this.client(flags)
    const format = this.jsonEnabled() ? undefined : await invoiceFormatter(client, this.colors)
    const invoice = await client.updateInvoice(args.id, changes)
    if (format) this.log(format(invoice))
    return invoice
  }
}
