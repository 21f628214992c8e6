import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { simulatorPageUrl } from '../../src/cli/page-url.js'
import type { CheckoutSession } from '../../src/schemas/index.js'

export default class SessionsOpen extends BaseCommand<CheckoutSession> {
  static override summary = 'Open a Checkout Session\'s hosted page in the browser.'

  static override description =
    'Prints the hosted URL instead with --print, when stdout is not a terminal, or when no browser can be started. ' +
    'With --json it prints the session and opens nothing.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> cs_123',
    '<%= config.bin %> <%= command.id %> cs_123 --print',
  ]

  static override args = {
    id: Args.string({ description: 'ID of the Checkout Session (cs_...).', required: true }),
  }

  static override flags = {
    print: Flags.boolean({ description: 'Only print the hosted URL, do not start a browser.' }),
  }

  async run(): Promise<CheckoutSession> {
    const { args, flags } = await this.parse(SessionsOpen)
    const client = await this.client(flags)
    const session = await client.getCheckoutSession(args.id)
    if (!this.jsonEnabled()) await this.openOrPrint(simulatorPageUrl(session.hostedUrl, client.baseUrl, 'hostedUrl'), flags.print)
    return session
  }
}
