import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceFormatter } from '../../src/cli/fields.js'
import { idempotencyKeyFlag, invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import { withRetryHint } from '../../src/cli/error-report.js'
import { newIdempotencyKey } from '../../src/client/bula-client.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesVoid extends BaseCommand<Invoice> {
  static override summary = 'Void a sent Invoice, so that it can no longer be paid.'

  static override description =
    'Only a sent Invoice can be voided: a draft or a paid one answers invalid_state, and one the customer is paying ' +
    'answers payment_in_progress. The number is kept and never reused; open payment links are cancelled. ' +
    'Pass the same --idempotency-key again to retry safely.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 12',
    '<%= config.bin %> <%= command.id %> 12 --idempotency-key void-12 --json',
  ]

  static override args = { id: invoiceIdArg }

  static override flags = {
    'idempotency-key': idempotencyKeyFlag,
  }

  async run(): Promise<Invoice> {
    const { args, flags } = await this.parse(InvoicesVoid)
    const idempotencyKey = flags['idempotency-key'] ?? newIdempotencyKey()
    const client = await this.client(flags)
    const format = this.jsonEnabled() ? undefined : await invoiceFormatter(client, this.colors)
    const invoice = await client.voidInvoice(args.id, idempotencyKey).catch((error: unknown) => {
      throw withRetryHint(error, idempotencyKey, 'The invoice may have been voided')
    })
    if (format) this.log(format(invoice))
    return invoice
  }
}
