import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkoutSessionFields } from '../../src/cli/fields.js'
import type { CheckoutSession } from '../../src/schemas/index.js'

export default class SessionsCancel extends BaseCommand<CheckoutSession> {
  static override summary = 'Cancel a pending Checkout Session.'

  static override description =
    'Only a pending session the customer has not started paying can be cancelled: otherwise the simulator ' +
    'answers invalid_state (not pending, e.g. a second cancel) or payment_in_progress.'

  static override examples = ['<%= config.bin %> <%= command.id %> cs_123', '<%= config.bin %> <%= command.id %> cs_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the Checkout Session (cs_...).', required: true }),
  }

  async run(): Promise<CheckoutSession> {
    const { args, flags } = await this.parse(SessionsCancel)
    const session = await (await this.client(flags)).cancelCheckoutSession(args.id)
    this.printFields(checkoutSessionFields(session))
    return session
  }
}
