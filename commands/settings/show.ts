import { BaseCommand } from '../../src/cli/base-command.js'
import { settingsFields } from '../../src/cli/fields.js'
import type { Settings } from '../../src/schemas/index.js'

export default class SettingsShow extends BaseCommand<Settings> {
  static override description = 'Show the merchant\'s dashboard settings (the invoice counter is the key\'s mode\'s).'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<Settings> {
    const { flags } = await this.parse(SettingsShow)
    const settings = await (await this.client(flags)).getSettings()
    this.printFields(settingsFields(settings))
    return settings
  }
}
