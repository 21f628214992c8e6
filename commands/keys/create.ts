import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { CreateApiKeyResponse } from '../../src/client/bula-client.js'
import { KEY_TYPES, MODES } from '../../src/schemas/enums.js'

export default class KeysCreate extends BaseCommand<CreateApiKeyResponse> {
  static override summary = 'Create an API key and print it (shown once).'

  static override description =
    'A key manages keys of its own mode only: a test key cannot create a live key. ' +
    'The first live key pair comes from `bula verify approve`.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --type secret',
    '<%= config.bin %> <%= command.id %> --type publishable --json',
    '<%= config.bin %> <%= command.id %> --type secret --mode live --profile live',
  ]

  static override flags = {
    type: Flags.option({ description: 'Kind of key.', options: KEY_TYPES, required: true })(),
    mode: Flags.option({ description: 'Mode of the key (default: the mode of the key used).', options: MODES })(),
  }

  async run(): Promise<CreateApiKeyResponse> {
    const { flags } = await this.parse(KeysCreate)
    const created = await (await this.client(flags)).createApiKey({ type: flags.type, mode: flags.mode })
    const { key } = created
    this.printFields([
      ['id', key.id],
      ['type', key.type],
      ['mode', key.mode],
      ['key', key.plaintext],
    ])
    this.printNotice('The key is shown only once: store it now.')
    return created
  }
}
