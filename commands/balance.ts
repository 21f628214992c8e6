import { BaseCommand } from '../src/cli/base-command.js'

import type { MerchantMe } from '../src/schemas/index.js'
import { formatFjd } from '../src/money.js'

export default class Balance extends BaseCommand<MerchantMe> {
  static override summary = 'Show the balance not yet paid out, in the key\'s mode, and the payout schedule.'

  static override description =
    'The balance is the succeeded payments (Checkout Sessions and paid Invoices) not yet swept into a Payout. ' +
    'With --json it prints the API\'s merchant (`GET /v1/merchants/me`), as `bula merchants me` does.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<MerchantMe> {
    const { flags } = await this.parse(Balance)
    const me = await (await this.client(flags)).getMe()
    this.printFields([
      ['mode', me.mode],
      ['balance', formatFjd(me.balance)],
      ['payout schedule', me.payoutSchedule],
    ])
    return me
  }
}
