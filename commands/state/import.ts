import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { confirm } from '../../src/cli/confirm.js'
import { inputName, STANDARD_STREAM } from '../../src/cli/files.js'
import { plural } from '../../src/plural.js'
import type { ImportStateResponse } from '../../src/client/bula-client.js'
import { countObjects, readStateFile } from '../../src/state/state-file.js'
import { printable } from '../../src/terminal-text.js'

/**
 * The API's answer to an import, or the same shape with `imported: null` when the question was answered no:
 * nothing was replaced, which `imported: 0` (a file of no objects, which leaves none) would not say.
 */
export type StateImportResult = Omit<ImportStateResponse, 'imported'> & { imported: number | null }

export default class StateImport extends BaseCommand<StateImportResult> {
  static override summary = 'Replace the key\'s merchant\'s objects of the key\'s mode with those of a file written by `bula state export`.'

  static override description =
    'Every object of the merchant in the key\'s mode is replaced by the file\'s; the other mode, the merchant\'s API ' +
    'keys, tier and verification stay as they are, so the key keeps working, and its clock never goes back. The file ' +
    'must come from the same merchant and mode and be at most 16 MiB. It is checked whole before anything changes: a ' +
    'refusal names the path of the first bad value (e.g. invoices[3].pageToken) and changes nothing. A file of a whole ' +
    'simulator (`bula serve --export-on-exit`) is started with `bula serve --import` instead. FILE - reads the state ' +
    'from standard input, so `bula state export - | bula state import - --profile other` copies a merchant to another ' +
    'simulator that has it; nothing is asked then, so standard input holds the state alone. ' +
    'Standard input must be piped: a terminal or an empty pipe is a usage error (exit 2). For a FILE, asks for ' +
    'confirmation when standard input is a terminal, unless --yes is given; without one (a script, CI) it asks nothing.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> fixtures/kava-kitchen.json',
    '<%= config.bin %> <%= command.id %> state.json --yes --json',
    '<%= config.bin %> state export - | <%= config.bin %> <%= command.id %> - --base-url http://127.0.0.1:4112',
  ]

  static override args = {
    file: Args.string({ description: 'A state file written by `bula state export`; - for standard input.', required: true }),
  }

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  }

  async run(): Promise<StateImportResult> {
    const { args, flags } = await this.parse(StateImport)
    const state = await readStateFile(args.file)
    const client = await this.client(flags)
    // Not for -, whose standard input is the state; and not without a terminal, so scripts and CI import as they always did.
    if (args.file !== STANDARD_STREAM && !flags.yes && process.stdin.isTTY) {
      const me = await client.getMe()
      const question =
        `Replace every ${me.mode} object of ${me.name} (${me.id}) with those of ${args.file} (${plural(countObjects(state), 'object')})? ` +
        `Keys, tier, verification and ${me.mode === 'test' ? 'live' : 'test'} data stay.`
      if (!(await confirm(question, '--yes'))) {
        this.log('Nothing was imported.')
        return { merchantId: me.id, mode: me.mode, imported: null }
      }
    }
    const imported = await client.importState(state)
    this.log(`Imported ${plural(imported.imported, 'object')} into merchant ${printable(imported.merchantId)} from ${inputName(args.file)}.`)
    return imported
  }
}
