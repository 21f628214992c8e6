import { BaseCommand } from '../../src/cli/base-command.js'
import type { ClearedApiFaults } from '../../src/schemas/index.js'

export default class FaultsClear extends BaseCommand<ClearedApiFaults> {
  static override description = 'Remove every API fault of the key\'s mode; the other mode\'s faults stay.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ClearedApiFaults> {
    const { flags } = await this.parse(FaultsClear)
    const cleared = await (await this.client(flags)).clearFaults()
    this.log(cleared.deleted === 0 ? 'No API faults were in force.' : `Removed ${cleared.deleted} API ${cleared.deleted === 1 ? 'fault' : 'faults'}.`)
    return cleared
  }
}
