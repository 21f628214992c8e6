import { BaseCommand } from '../../src/cli/base-command.js'
import { formatDuration } from '../../src/duration.js'
import { formatTime } from '../../src/cli/output.js'
import type { Clock } from '../../src/schemas/index.js'

export default class ClockShow extends BaseCommand<Clock> {
  static override description = 'Show the merchant\'s simulated time and how far it is ahead of real time.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<Clock> {
    const { flags } = await this.parse(ClockShow)
    const clock = await (await this.client(flags)).getClock()
    this.printFields([
      ['now', `${formatTime(clock.now)} (${clock.now})`],
      ['ahead of real time by', formatDuration(clock.offsetMs)],
    ])
    return clock
  }
}
