import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkoutSessionFields } from '../../src/cli/fields.js'
import type { CheckoutSession } from '../../src/schemas/index.js'

export default class SessionsGet extends BaseCommand<CheckoutSession> {
  static override description = 'Show a Checkout Session: its status decides fulfilment, never the redirect alone.'

  static override examples = ['<%= config.bin %> <%= command.id %> cs_123', '<%= config.bin %> <%= command.id %> cs_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the Checkout Session (cs_...).', required: true }),
  }

  async run(): Promise<CheckoutSession> {
    const { args, flags } = await this.parse(SessionsGet)
    const session = await (await this.client(flags)).getCheckoutSession(args.id)
    this.printFields(checkoutSessionFields(session))
    return session
  }
}
