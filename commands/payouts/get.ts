import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { payoutFields } from '../../src/cli/fields.js'
import type { Payout } from '../../src/schemas/index.js'

export default class PayoutsGet extends BaseCommand<Payout> {
  static override description = 'Show a Payout: its amount, rail, status and, for a failed one, the reason.'

  static override examples = ['<%= config.bin %> <%= command.id %> po_123', '<%= config.bin %> <%= command.id %> po_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the Payout (po_...).', required: true }),
  }

  async run(): Promise<Payout> {
    const { args, flags } = await this.parse(PayoutsGet)
    const payout = await (await this.client(flags)).getPayout(args.id)
    this.printFields(payoutFields(payout))
    return payout
  }
}
