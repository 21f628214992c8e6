import { BaseCommand } from '../../src/cli/base-command.js'
import type { ApiFaultList } from '../../src/schemas/index.js'
import { apiFaultColumns } from '../../src/ui/faults-and-doctor.js'

export default class FaultsList extends BaseCommand<ApiFaultList> {
  static override description =
    'List the API faults in force for the key\'s mode, oldest first (the order a request checks them in). ' +
    'A fault is gone once it has matched --times requests; `bula logs tail` marks each request a fault struck.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ApiFaultList> {
    const { flags } = await this.parse(FaultsList)
    const list = await (await this.client(flags)).listFaults()
    this.printTable(list.data, apiFaultColumns, 'No API faults in force.')
    return list
  }
}
