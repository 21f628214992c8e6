import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceFormatter } from '../../src/cli/fields.js'
import { idempotencyKeyFlag, invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import { withRetryHint } from '../../src/cli/error-report.js'
import { newIdempotencyKey } from '../../src/client/bula-client.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesSend extends BaseCommand<Invoice> {
  static override summary = 'Send a draft Invoice: it gets its number and its hosted URL starts working.'

  static override description =
    'The number comes from the invoice prefix and counter in Settings. The API does not e-mail the customer: ' +
    'share the URL, or use `bula invoices email`. Only a draft can be sent (otherwise invalid_state), and a total ' +
    'of FJ$5,000.00 or more is refused. Pass the same --idempotency-key again to retry safely: no second number is used.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 12',
    '<%= config.bin %> <%= command.id %> 12 --idempotency-key send-12 --json',
  ]

  static override args = { id: invoiceIdArg }

  static override flags = {
    'idempotency-key': idempotencyKeyFlag,
  }

  async run(): Promise<Invoice> {
    const { args, flags } = await this.parse(InvoicesSend)
    const idempotencyKey = flags['idempotency-key'] ?? newIdempotencyKey()
    const client = await this.client(flags)
    const format = this.jsonEnabled() ? undefined : await invoiceFormatter(client, this.colors)
    const invoice = await client.sendInvoice(args.id, idempotencyKey).catch((error: unknown) => {
      throw withRetryHint(error, idempotencyKey, 'The invoice may have been sent')
    })
    if (format) this.log(format(invoice))
    return invoice
  }
}
