import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { settingsFields } from '../../src/cli/fields.js'
import { parseBankDestination, parseWalletDestination } from '../../src/payout-destination.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { usageError, usageParser } from '../../src/cli/usage.js'
import { PAYOUT_SCHEDULES } from '../../src/schemas/enums.js'
import type { PayoutDestination, Settings, UpdateSettingsRequest } from '../../src/schemas/index.js'

export default class SettingsSet extends BaseCommand<Settings> {
  static override summary = 'Change dashboard settings.'

  static override description = 'Only the settings given as flags change. Prints all settings afterwards.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --display-name "Kai Store" --invoice-prefix INV-2026',
    '<%= config.bin %> <%= command.id %> --vat-number 50-12345-0-1',
    '<%= config.bin %> <%= command.id %> --payout-schedule daily --payout-destination-bank "BSP:Kai Store Ltd:12345678"',
    '<%= config.bin %> <%= command.id %> --payout-destination-wallet mpaisa:+6797123456 --no-receipts',
    '<%= config.bin %> <%= command.id %> --no-live-providers --json',
  ]

  static override flags = {
    'display-name': Flags.string({ description: 'Name customers see on hosted pages and receipts.' }),
    'vat-number': Flags.string({
      description: 'Your VAT number, printed as the seller\'s on every invoice that does not give its own.',
      exclusive: ['clear-vat-number'],
    }),
    'clear-vat-number': Flags.boolean({ description: 'Remove the VAT number (not VAT-registered).' }),
    'invoice-prefix': Flags.string({ description: 'Invoice number prefix: INV- followed by up to 8 digits.' }),
    'invoice-next-number': Flags.integer({ description: 'Number the next sent invoice gets (this mode\'s counter).', min: 1 }),
    receipts: Flags.boolean({ description: 'E-mail live-mode receipts to customers.', allowNo: true }),
    'payout-schedule': Flags.option({ description: 'When payouts are made.', options: PAYOUT_SCHEDULES })(),
    'payout-destination-bank': Flags.custom<PayoutDestination>({
      description: 'Pay out to a bank account: "Bank:Account Name:AccountNumber".',
      exclusive: ['payout-destination-wallet'],
      parse: usageParser(parseBankDestination),
    })(),
    'payout-destination-wallet': Flags.custom<PayoutDestination>({
      description: 'Pay out to a mobile wallet: "mpaisa:+679XXXXXXX" or "mycash:+679XXXXXXX".',
      parse: usageParser(parseWalletDestination),
    })(),
    'live-providers': Flags.boolean({
      description: 'Whether providers take live payments (off: live checkout answers live_mode_unavailable).',
      allowNo: true,
    }),
  }

  async run(): Promise<Settings> {
    const { flags } = await this.parse(SettingsSet)
    const changes: UpdateSettingsRequest = {
      displayName: flags['display-name'],
      vatNumber: flags['clear-vat-number'] ? null : flags['vat-number'],
      invoicePrefix: flags['invoice-prefix'],
      invoiceNextNumber: flags['invoice-next-number'],
      receiptsEnabled: flags.receipts,
      payoutSchedule: flags['payout-schedule'],
      payoutDestination: flags['payout-destination-bank'] ?? flags['payout-destination-wallet'],
      liveProviders: flags['live-providers'],
    }
    if (Object.values(changes).every((value) => value === undefined)) {
      throw usageError(`Nothing to change: give at least one setting flag (see \`${bulaCommand('settings set --help')}\`).`)
    }
    const settings = await (await this.client(flags)).updateSettings(changes)
    this.printFields(settingsFields(settings))
    return settings
  }
}
