import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import { simulatorPageUrl } from '../../src/cli/page-url.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesOpen extends BaseCommand<Invoice> {
  static override summary = 'Open an Invoice\'s hosted page, where the customer pays, in the browser.'

  static override description =
    'Prints the URL instead with --print, when stdout is not a terminal, or when no browser can be started. ' +
    'With --json it prints the Invoice and opens nothing. The page works once the Invoice is sent.'

  static override examples = ['<%= config.bin %> <%= command.id %> 12', '<%= config.bin %> <%= command.id %> 12 --print']

  static override args = { id: invoiceIdArg }

  static override flags = {
    print: Flags.boolean({ description: 'Only print the URL, do not start a browser.' }),
  }

  async run(): Promise<Invoice> {
    const { args, flags } = await this.parse(InvoicesOpen)
    const client = await this.client(flags)
    const invoice = await client.getInvoice(args.id)
    if (invoice.status === 'draft') this.warn(`Invoice ${invoice.id} is a draft: its page works once it is sent.`)
    if (!this.jsonEnabled()) await this.openOrPrint(simulatorPageUrl(invoice.url, client.baseUrl, 'url'), flags.print)
    return invoice
  }
}
