import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { invoiceFormatter } from '../../src/cli/fields.js'
import { createInvoiceRequest, idempotencyKeyFlag, invoiceFieldFlags, readInvoiceFile } from '../../src/cli/invoice-inputs.js'
import { withRetryHint } from '../../src/cli/error-report.js'
import { newIdempotencyKey } from '../../src/client/bula-client.js'
import type { Invoice } from '../../src/schemas/index.js'

export default class InvoicesCreate extends BaseCommand<Invoice> {
  static override summary = 'Create a draft Invoice (Business accounts).'

  static override description =
    'Give the customer, one --item per line and the due date as flags, or the whole CreateInvoiceRequest as a JSON ' +
    'file with --file (money in cents there, as the API takes it); --file cannot be combined with the field flags. ' +
    'Each run sends a fresh Idempotency-Key unless --idempotency-key is given: pass the same key again to retry a create safely.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --customer "Mere Vula" --item "Kava bowl:2:45.50" --due 2026-12-31',
    '<%= config.bin %> <%= command.id %> --customer "Kai Store Ltd" --item "Masi print: large:1:120" --item "Delivery:1:15" --tax VAT:12.5 --due 2026-12-31 --email accounts@kaistore.fj',
    '<%= config.bin %> <%= command.id %> --file invoice.json --idempotency-key order-1234 --json',
  ]

  static override flags = {
    ...invoiceFieldFlags,
    file: Flags.string({
      description: 'Read the whole CreateInvoiceRequest from this JSON file instead of the field flags.',
      exclusive: Object.keys(invoiceFieldFlags),
    }),
    'idempotency-key': idempotencyKeyFlag,
  }

  async run(): Promise<Invoice> {
    const { flags } = await this.parse(InvoicesCreate)
    const body = flags.file === undefined ? createInvoiceRequest(flags) : await readInvoiceFile(flags.file)
    const idempotencyKey = flags['idempotency-key'] ?? newIdempotencyKey()
    const client = await this.client(flags)
    const format = this.jsonEnabled() ? undefined : await invoiceFormatter(client, this.colors)
    const invoice = await client.createInvoice(body, idempotencyKey).catch((error: unknown) => {
      throw withRetryHint(error, idempotencyKey, 'The invoice may have been created')
    })
    if (format) this.log(format(invoice))
    return invoice
  }
}
