import { BaseCommand } from '../../src/cli/base-command.js'
import { formatTime } from '../../src/cli/output.js'
import type { ApiKeyList } from '../../src/schemas/index.js'

export default class KeysList extends BaseCommand<ApiKeyList> {
  static override description = 'List the API keys of the key\'s mode, masked.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ApiKeyList> {
    const { flags } = await this.parse(KeysList)
    const list = await (await this.client(flags)).listApiKeys()
    this.printTable(
      list.data,
      [
        { header: 'ID', value: (key) => key.id },
        { header: 'TYPE', value: (key) => key.type },
        { header: 'MODE', value: (key) => key.mode },
        { header: 'KEY', value: (key) => key.masked },
        { header: 'STATUS', value: (key) => key.status },
        { header: 'CREATED', value: (key) => formatTime(key.createdAt) },
        { header: 'EXPIRES', value: (key) => formatTime(key.expiresAt) },
      ],
      'No API keys.',
    )
    return list
  }
}
