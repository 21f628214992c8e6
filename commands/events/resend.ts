import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import type { ResendEventResponse } from '../../src/schemas/index.js'
import { deliveryColumns } from '../../src/ui/webhook-fields.js'

export default class EventsResend extends BaseCommand<ResendEventResponse> {
  static override summary = 'Deliver an event again, with the same event id.'

  static override description =
    'Queues a new delivery to --endpoint, or to every active endpoint of the event\'s mode, attempted at once and ' +
    'retried like any other. Follow it with `bula events get`.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> evt_123',
    '<%= config.bin %> <%= command.id %> evt_123 --endpoint we_123 --json',
  ]

  static override args = {
    id: Args.string({ description: 'ID of the event (evt_...).', required: true }),
  }

  static override flags = {
    endpoint: Flags.string({ description: 'Only this endpoint (we_...); default every active endpoint.' }),
  }

  async run(): Promise<ResendEventResponse> {
    const { args, flags } = await this.parse(EventsResend)
    const resent = await (await this.client(flags)).resendEvent(args.id, flags.endpoint)
    this.printTable(resent.deliveries, deliveryColumns, 'No active endpoint to send to: nothing queued.')
    if (resent.deliveries.length > 0) this.log(`See the attempts with \`${bulaCommand(`events get ${args.id}`)}\`.`)
    return resent
  }
}
