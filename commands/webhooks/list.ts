import { BaseCommand } from '../../src/cli/base-command.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import type { WebhookEndpointList } from '../../src/schemas/index.js'
import { webhookEndpointColumns } from '../../src/ui/webhook-fields.js'

export default class WebhooksList extends BaseCommand<WebhookEndpointList> {
  static override description = 'List the webhook endpoints of the key\'s mode (never their secrets).'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<WebhookEndpointList> {
    const { flags } = await this.parse(WebhooksList)
    const list = await (await this.client(flags)).listWebhookEndpoints()
    this.printTable(list.data, webhookEndpointColumns, 'No webhook endpoints.')
    // A pending endpoint hears nothing, and the table cannot say why: its webhook.verified delivery holds the answers.
    if (list.data.some((endpoint) => endpoint.status === 'pending')) {
      this.printNotice(
        'A pending endpoint has not yet answered webhook.verified with a 2xx, so other events skip it. Its attempts and ' +
          `what the receiver answered: \`${bulaCommand('events list --type webhook.verified')}\`, then \`${bulaCommand('events get <evt_...>')}\`.`,
      )
    }
    return list
  }
}
