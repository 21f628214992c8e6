import { BaseCommand } from '../../src/cli/base-command.js'
import { checkoutSessionFields, paymentIntentFields } from '../../src/cli/fields.js'
import { invoiceIdArg } from '../../src/cli/invoice-inputs.js'
import { payFlags } from '../../src/cli/pay-flags.js'
import type { PayResponse } from '../../src/schemas/index.js'

export default class InvoicesPay extends BaseCommand<PayResponse> {
  static override summary = 'Pay a sent Invoice as the customer would on its hosted page (test mode).'

  static override description =
    'The customer stand-in: pays through the Invoice\'s Checkout Session (the open one, or a new one carrying the ' +
    'invoice number) and sends the matching webhooks. Success marks the Invoice paid and grows the balance; ' +
    '"processing" leaves the payment in progress (pay again to finish it).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 12',
    '<%= config.bin %> <%= command.id %> 12 --outcome failed --provider mpaisa',
    '<%= config.bin %> <%= command.id %> 12 --outcome processing --json',
  ]

  static override args = { id: invoiceIdArg }

  static override flags = payFlags

  async run(): Promise<PayResponse> {
    const { args, flags } = await this.parse(InvoicesPay)
    const result = await (await this.client(flags)).payInvoice(args.id, { outcome: flags.outcome, provider: flags.provider })
    this.printFields([...checkoutSessionFields(result.checkoutSession), ...paymentIntentFields(result.paymentIntent)])
    return result
  }
}
