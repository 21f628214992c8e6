import { BaseCommand } from '../../src/cli/base-command.js'

import type { MerchantMe } from '../../src/schemas/index.js'
import { formatFjd } from '../../src/money.js'

export default class MerchantsMe extends BaseCommand<MerchantMe> {
  static override description = 'Show the merchant the API key belongs to, the key\'s mode, the balance and the payout schedule.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile live --json',
  ]

  async run(): Promise<MerchantMe> {
    const { flags } = await this.parse(MerchantsMe)
    const me = await (await this.client(flags)).getMe()
    this.printFields([
      ['id', me.id],
      ['name', me.name],
      ['display name', me.displayName],
      ['email', me.email],
      ['tier', me.tier],
      ['mode', me.mode],
      ['balance', formatFjd(me.balance)],
      ['payout schedule', me.payoutSchedule],
    ])
    return me
  }
}
