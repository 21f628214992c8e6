import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { EVENT_TYPES } from '../../src/schemas/enums.js'
import type { EventList } from '../../src/schemas/index.js'
import { eventColumns } from '../../src/ui/webhook-fields.js'

export default class EventsList extends BaseCommand<EventList> {
  static override summary = 'List the events of the key\'s mode, newest first.'

  static override description =
    'Shows one page (--limit, default 10); when more follow, the --starting-after to pass for the next page.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --type checkout_session.succeeded --limit 50',
    '<%= config.bin %> <%= command.id %> --starting-after evt_123 --json',
  ]

  static override flags = {
    type: Flags.option({ description: 'Only events of this type.', options: EVENT_TYPES })(),
    limit: Flags.integer({ description: 'Events per page, 1 to 100 (default 10).', min: 1, max: 100 }),
    'starting-after': Flags.string({ description: 'Start after this event: the last id of the previous page.' }),
  }

  async run(): Promise<EventList> {
    const { flags } = await this.parse(EventsList)
    const list = await (await this.client(flags)).listEvents({ type: flags.type, limit: flags.limit, starting_after: flags['starting-after'] })
    this.printTable(list.data, eventColumns, 'No events.')
    const last = list.data.at(-1)
    if (list.hasMore && last) this.printNotice(`More events follow: add --starting-after ${last.event_id}.`)
    return list
  }
}
