import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkoutSessionFields, paymentIntentFields } from '../../src/cli/fields.js'
import { payFlags } from '../../src/cli/pay-flags.js'
import type { PayResponse } from '../../src/schemas/index.js'

export default class SessionsPay extends BaseCommand<PayResponse> {
  static override summary = 'Pay a Checkout Session as the customer would on the hosted page (test mode).'

  static override description =
    'The customer stand-in: creates a payment intent with the chosen outcome and sends the matching webhooks. ' +
    '"processing" leaves the intent in progress (the session stays pending and can no longer be cancelled); ' +
    'pay again with succeeded or failed to finish it.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> cs_123',
    '<%= config.bin %> <%= command.id %> cs_123 --outcome failed --provider mpaisa',
    '<%= config.bin %> <%= command.id %> cs_123 --outcome processing --json',
  ]

  static override args = {
    id: Args.string({ description: 'ID of the Checkout Session (cs_...).', required: true }),
  }

  static override flags = payFlags

  async run(): Promise<PayResponse> {
    const { args, flags } = await this.parse(SessionsPay)
    const result = await (await this.client(flags)).payCheckoutSession(args.id, { outcome: flags.outcome, provider: flags.provider })
    this.printFields([...checkoutSessionFields(result.checkoutSession), ...paymentIntentFields(result.paymentIntent)])
    return result
  }
}
