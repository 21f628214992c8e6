import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { inputName } from '../../src/cli/files.js'
import { plural } from '../../src/plural.js'
import type { ImportStateResponse } from '../../src/client/bula-client.js'
import { readStateFile } from '../../src/state/state-file.js'

export default class StateImport extends BaseCommand<ImportStateResponse> {
  static override summary = 'Replace the key\'s merchant\'s objects of the key\'s mode with those of a file written by `bula state export`.'

  static override description =
    'Every object of the merchant in the key\'s mode is replaced by the file\'s; the other mode, the merchant\'s API ' +
    'keys, tier and verification stay as they are, so the key keeps working, and its clock never goes back. The file ' +
    'must come from the same merchant and mode and be at most 16 MiB. It is checked whole before anything changes: a ' +
    'refusal names the path of the first bad value (e.g. invoices[3].pageToken) and changes nothing. A file of a whole ' +
    'simulator (`bula serve --export-on-exit`) is started with `bula serve --import` instead. FILE - reads the state ' +
    'from standard input, so `bula state export - | bula state import - --profile other` copies a merchant to another ' +
    'simulator that has it; nothing is asked before the objects are replaced, so standard input holds the state alone. ' +
    'Standard input must be piped: a terminal or an empty pipe is a usage error (exit 2).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/kava-kitchen.json',
    '<%= config.bin %> <%= command.id %> state.json --json',
    '<%= config.bin %> state export - | <%= config.bin %> <%= command.id %> - --base-url http://127.0.0.1:4112',
  ]

  static override args = {
    file: Args.string({ description: 'A state file written by `bula state export`; - for standard input.', required: true }),
  }

  async run(): Promise<ImportStateResponse> {
    const { args, flags } = await this.parse(StateImport)
    const state = await readStateFile(args.file)
    const imported = await (await this.client(flags)).importState(state)
    this.log(`Imported ${plural(imported.imported, 'object')} into merchant ${imported.merchantId} from ${inputName(args.file)}.`)
    return imported
  }
}
