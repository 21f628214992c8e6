import { BaseCommand } from '../../src/cli/base-command.js'
import { payoutFields } from '../../src/cli/fields.js'
import type { PayoutResponse } from '../../src/client/bula-client.js'

export default class PayoutsRequest extends BaseCommand<PayoutResponse> {
  static override summary = 'Pay out the balance now, as the dashboard does on the manual schedule.'

  static override description =
    'Sweeps the key\'s mode balance into one Payout. Only on the manual payout schedule ' +
    '(`bula settings set --payout-schedule manual`), else payout_schedule_not_manual; a zero balance answers no_balance.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<PayoutResponse> {
    const { flags } = await this.parse(PayoutsRequest)
    const result = await (await this.client(flags)).requestPayout()
    this.printFields(payoutFields(result.payout))
    return result
  }
}
