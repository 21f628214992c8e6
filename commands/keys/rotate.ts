import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { formatTime } from '../../src/cli/output.js'
import type { RotateApiKeyResponse } from '../../src/schemas/index.js'

export default class KeysRotate extends BaseCommand<RotateApiKeyResponse> {
  static override summary = 'Rotate an API key and print its replacement (shown once).'

  static override description = 'The old key keeps working for 72 hours of the merchant\'s clock, then is refused.'

  static override examples = ['<%= config.bin %> <%= command.id %> key_123', '<%= config.bin %> <%= command.id %> key_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the key to rotate (see `bula keys list`).', required: true }),
  }

  async run(): Promise<RotateApiKeyResponse> {
    const { args, flags } = await this.parse(KeysRotate)
    const rotated = await (await this.client(flags)).rotateApiKey(args.id)
    const { key, previous } = rotated
    this.printFields([
      ['id', key.id],
      ['type', key.type],
      ['mode', key.mode],
      ['key', key.plaintext],
      ['previous key', `${previous.id} (${previous.masked}) works until ${formatTime(previous.expiresAt)}`],
    ])
    this.printNotice('The new key is shown only once: store it now.')
    const advice = await this.ownKeyAdvice(flags, previous.masked, `at ${formatTime(previous.expiresAt)}`, key.plaintext)
    if (advice) this.printNotice(advice)
    return rotated
  }
}
