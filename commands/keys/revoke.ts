import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { formatTime } from '../../src/cli/output.js'
import type { RevokeApiKeyResponse } from '../../src/schemas/index.js'

export default class KeysRevoke extends BaseCommand<RevokeApiKeyResponse> {
  static override description = 'Revoke an API key at once: requests with it are refused from now on.'

  static override examples = ['<%= config.bin %> <%= command.id %> key_123', '<%= config.bin %> <%= command.id %> key_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the key to revoke (see `bula keys list`).', required: true }),
  }

  async run(): Promise<RevokeApiKeyResponse> {
    const { args, flags } = await this.parse(KeysRevoke)
    const revoked = await (await this.client(flags)).revokeApiKey(args.id)
    const { key } = revoked
    this.printFields([
      ['id', key.id],
      ['type', key.type],
      ['mode', key.mode],
      ['key', key.masked],
      ['status', key.status],
      ['revoked', formatTime(key.revokedAt)],
    ])
    const advice = await this.ownKeyAdvice(flags, key.masked, 'now')
    if (advice) this.printNotice(advice)
    return revoked
  }
}
