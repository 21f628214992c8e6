import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import type { EventWithDeliveries } from '../../src/schemas/index.js'
import { attemptColumns, describeDelivery, eventFields } from '../../src/ui/webhook-fields.js'

export default class EventsGet extends BaseCommand<EventWithDeliveries> {
  static override summary = 'Show an event, its payload and every delivery attempt.'

  static override description =
    'Each delivery (one per endpoint, and one per resend) lists its attempts: the time on the merchant\'s clock, the ' +
    'HTTP status or why no answer came, the latency and the start of the receiver\'s answer.'

  static override examples = ['<%= config.bin %> <%= command.id %> evt_123', '<%= config.bin %> <%= command.id %> evt_123 --json']

  static override args = {
    id: Args.string({ description: 'ID of the event (evt_..., see `bula events list`).', required: true }),
  }

  async run(): Promise<EventWithDeliveries> {
    const { args, flags } = await this.parse(EventsGet)
    const detail = await (await this.client(flags)).getEvent(args.id)
    this.printFields(eventFields(detail.event))
    this.log(`\n${this.colors.bold('Payload')}\n${JSON.stringify(detail.event, null, 2)}`)
    this.log(`\n${this.colors.bold('Deliveries')}`)
    if (detail.deliveries.length === 0) this.log('None: no active endpoint heard this event.')
    for (const delivery of detail.deliveries) {
      this.log(`\n${describeDelivery(delivery)}`)
      const attempts = delivery.attempts.map((attempt, index) => ({ ...attempt, number: index + 1 }))
      this.printTable(attempts, attemptColumns, 'No attempt yet.')
    }
    return detail
  }
}
