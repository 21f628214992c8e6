import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { WebhookEndpointResponse } from '../../src/schemas/index.js'
import { webhookEndpointFields } from '../../src/ui/webhook-fields.js'

export default class WebhooksRotate extends BaseCommand<WebhookEndpointResponse> {
  static override summary = 'Give a webhook endpoint a new signing secret and print it (shown once).'

  static override description =
    'Deliveries are signed with both secrets (v1=<new>,v1=<old>) until the old one stops verifying, 72 hours later on ' +
    'the merchant\'s clock; switch your receiver to the new secret before then. The endpoint is sent webhook.verified again.'

  static override examples = ['<%= config.bin %> <%= command.id %> we_123', '<%= config.bin %> <%= command.id %> we_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the endpoint (we_..., see `bula webhooks list`).', required: true }),
  }

  async run(): Promise<WebhookEndpointResponse> {
    const { args, flags } = await this.parse(WebhooksRotate)
    const rotated = await (await this.client(flags)).rotateWebhookEndpoint(args.id)
    this.printFields(webhookEndpointFields(rotated.endpoint))
    this.printNotice('The new signing secret is shown only once: store it now.')
    return rotated
  }
}
