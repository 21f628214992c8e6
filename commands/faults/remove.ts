import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { DeletedApiFault } from '../../src/schemas/index.js'

export default class FaultsRemove extends BaseCommand<DeletedApiFault> {
  static override description = 'Remove one API fault: requests it would have matched are answered as normal.'

  static override examples = ['<%= config.bin %> <%= command.id %> flt_123', '<%= config.bin %> <%= command.id %> flt_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the fault (flt_..., see `bula faults list`).', required: true }),
  }

  async run(): Promise<DeletedApiFault> {
    const { args, flags } = await this.parse(FaultsRemove)
    const removed = await (await this.client(flags)).removeFault(args.id)
    this.log(`Removed API fault ${removed.id}.`)
    return removed
  }
}
