import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { DeletedWebhookEndpoint } from '../../src/schemas/index.js'

export default class WebhooksDelete extends BaseCommand<DeletedWebhookEndpoint> {
  static override description = 'Delete a webhook endpoint: it gets nothing more, and its pending retries are cancelled.'

  static override examples = ['<%= config.bin %> <%= command.id %> we_123', '<%= config.bin %> <%= command.id %> we_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the endpoint (we_..., see `bula webhooks list`).', required: true }),
  }

  async run(): Promise<DeletedWebhookEndpoint> {
    const { args, flags } = await this.parse(WebhooksDelete)
    const deleted = await (await this.client(flags)).deleteWebhookEndpoint(args.id)
    this.log(`Deleted webhook endpoint ${deleted.id}.`)
    return deleted
  }
}
