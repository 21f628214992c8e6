import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { toJsonFileText, writeOutputFile } from '../../src/cli/files.js'
import { plural } from '../../src/plural.js'
import { countObjects } from '../../src/state/state-file.js'

export interface StateExportResult {
  file: string
  merchantId: string
  objects: number
}

export default class StateExport extends BaseCommand<StateExportResult> {
  static override summary = 'Write the key\'s merchant, with every object of the key\'s mode, to a JSON file.'

  static override description =
    'The merchant\'s settings and clock, and its Checkout Sessions, payments, Invoices, Payouts, webhook endpoints, ' +
    'events, deliveries and e-mails of the key\'s mode (a test key exports test data only), as readable JSON that a ' +
    'team can keep in git; `bula state import` puts them back. It holds the webhook endpoints\' signing secrets (and, ' +
    'in live mode, customers\' e-mails), so the file is written readable by you only (0600); API keys are never in it. ' +
    'An existing FILE is left alone unless --force is given.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/kava-kitchen.json',
    '<%= config.bin %> <%= command.id %> state.json --force --json',
  ]

  static override args = {
    file: Args.string({ description: 'File to write.', required: true }),
  }

  static override flags = {
    force: Flags.boolean({ description: 'Overwrite FILE if it exists.' }),
  }

  async run(): Promise<StateExportResult> {
    const { args, flags } = await this.parse(StateExport)
    const state = await (await this.client(flags)).exportState()
    await writeOutputFile(args.file, toJsonFileText(state), { force: flags.force, param: 'file', secret: true })
    const objects = countObjects(state)
    this.log(`Wrote ${plural(objects, 'object')} of merchant ${state.merchantId} to ${args.file}.`)
    return { file: args.file, merchantId: state.merchantId, objects }
  }
}
