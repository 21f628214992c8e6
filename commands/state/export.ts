import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkStandardOutput, toJsonFileText, writeOutput } from '../../src/cli/files.js'
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
    'An existing FILE is left alone unless --force is given. FILE - prints the JSON on standard output instead ' +
    '(not with --json), where keeping it private is up to where you send it.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/kava-kitchen.json',
    '<%= config.bin %> <%= command.id %> state.json --force --json',
    '<%= config.bin %> <%= command.id %> - | gzip > state.json.gz',
  ]

  static override args = {
    file: Args.string({ description: 'File to write; - for standard output.', required: true }),
  }

  static override flags = {
    force: Flags.boolean({ description: 'Overwrite FILE if it exists.' }),
  }

  async run(): Promise<StateExportResult> {
    const { args, flags } = await this.parse(StateExport)
    checkStandardOutput(args.file, { given: 'FILE is -', json: this.jsonEnabled() })
    const state = await (await this.client(flags)).exportState()
    await writeOutput(args.file, toJsonFileText(state), { force: flags.force, param: 'file', secret: true })
    const objects = countObjects(state)
    this.logWrote(args.file, `${plural(objects, 'object')} of merchant ${state.merchantId}`)
    return { file: args.file, merchantId: state.merchantId, objects }
  }
}
