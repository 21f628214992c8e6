import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { WebhookEndpointResponse } from '../../src/schemas/index.js'
import { webhookEndpointFields } from '../../src/ui/webhook-fields.js'

export default class WebhooksCreate extends BaseCommand<WebhookEndpointResponse> {
  static override summary = 'Register a webhook endpoint and print its signing secret (shown once).'

  static override description =
    'The endpoint hears the events of the key\'s mode. It is sent webhook.verified at once and becomes active when it ' +
    'answers with a 2xx; until then other events skip it. Test mode accepts http://localhost, http://127.0.0.1 and ' +
    'http://[::1] URLs; live mode HTTPS only.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --url https://kaistore.fj/webhooks',
    '<%= config.bin %> <%= command.id %> --url http://localhost:3000/webhooks --json',
  ]

  static override flags = {
    url: Flags.string({ description: 'Where to deliver events (HTTPS; http://localhost in test mode).', required: true }),
  }

  async run(): Promise<WebhookEndpointResponse> {
    const { flags } = await this.parse(WebhooksCreate)
    const created = await (await this.client(flags)).createWebhookEndpoint({ url: flags.url })
    this.printFields(webhookEndpointFields(created.endpoint))
    this.printNotice('The signing secret is shown only once: store it now (e.g. as BULA_WEBHOOK_SECRET for your receiver).')
    return created
  }
}
