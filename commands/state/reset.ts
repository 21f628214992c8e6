import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { confirm } from '../../src/cli/confirm.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { usageError } from '../../src/cli/usage.js'
import type { ResetStateResponse } from '../../src/client/bula-client.js'
import { printable } from '../../src/terminal-text.js'

/** The API's answer to a reset, or the same shape with `reset: false` when the question was answered no. */
export type StateResetResult = Omit<ResetStateResponse, 'reset'> & { reset: boolean }

export default class StateReset extends BaseCommand<StateResetResult> {
  static override summary = 'Delete every object of the key\'s merchant in the key\'s mode.'

  static override description =
    'Checkout Sessions, payments, Invoices, Payouts, webhook endpoints, events, deliveries and e-mails of the key\'s ' +
    'mode go, and that mode\'s balance is zero; the merchant, its API keys, settings, verification, clock and the ' +
    'other mode\'s objects stay. --merchant is required: ' +
    'it is the one scope the API can reset. The whole simulator\'s state belongs to its process: start afresh with ' +
    '`bula serve --memory` or `bula exec`, or from a file with `--import`. Asks for confirmation on a terminal ' +
    'unless --yes is given; without a terminal --yes is required.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --merchant',
    '<%= config.bin %> <%= command.id %> --merchant --yes --json',
  ]

  static override flags = {
    merchant: Flags.boolean({ description: 'Reset the key\'s merchant (required: the one scope there is).' }),
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  }

  async run(): Promise<StateResetResult> {
    const { flags } = await this.parse(StateReset)
    if (!flags.merchant) {
      throw usageError(
        'Add --merchant to reset the key\'s merchant. The whole simulator cannot be reset through its API: its state belongs ' +
          `to its process. Restart \`${bulaCommand('serve --memory')}\`, run under \`${bulaCommand('exec')}\`, or start from a file with \`--import FILE\`.`,
      )
    }
    const client = await this.client(flags)
    if (!flags.yes) {
      const me = await client.getMe()
      const question = `Delete every ${me.mode} object of ${me.name} (${me.id})? Keys, settings, the clock and ${me.mode === 'test' ? 'live' : 'test'} data stay.`
      if (!(await confirm(question, '--yes'))) {
        this.log('Nothing was reset.')
        return { merchantId: me.id, mode: me.mode, reset: false }
      }
    }
    const result = await client.resetState()
    this.log(printable(`Reset merchant ${result.merchantId}: it has no ${result.mode} objects left.`))
    return result
  }
}
