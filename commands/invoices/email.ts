import { BaseCommand } from '../../src/cli/base-command.js'
import { emailFields } from '../../src/cli/fields.js'
import { invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import type { EmailInvoiceResponse } from '../../src/client/bula-client.js'

export default class InvoicesEmail extends BaseCommand<EmailInvoiceResponse> {
  static override summary = 'E-mail a sent Invoice to its customer, as the dashboard does.'

  static override description =
    'The pay link and the PDF, branded with the display name, go to the Invoice\'s customer e-mail. The simulator ' +
    'sends no mail: the e-mail lands in its outbox. A draft, or an Invoice without a customer e-mail ' +
    '(set one with `bula invoices edit --email` before sending), is refused.'

  static override examples = ['<%= config.bin %> <%= command.id %> 12', '<%= config.bin %> <%= command.id %> 12 --json']

  static override args = { id: invoiceIdArg }

  async run(): Promise<EmailInvoiceResponse> {
    const { args, flags } = await this.parse(InvoicesEmail)
    const result = await (await this.client(flags)).emailInvoice(args.id)
    this.printFields(emailFields(result.email))
    return result
  }
}
