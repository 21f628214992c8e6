import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { parseDuration } from '../../src/duration.js'
import { parseInstant } from '../../src/cli/instant.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { formatTime } from '../../src/cli/output.js'
import { usageError, usageParser } from '../../src/cli/usage.js'
import type { AdvanceClockRequest, AdvanceClockResponse } from '../../src/schemas/index.js'
import { MAX_ADVANCE_DAYS, MAX_ADVANCE_MS } from '../../src/schemas/enums.js'

export default class ClockAdvance extends BaseCommand<AdvanceClockResponse> {
  static override summary = 'Move the merchant\'s clock forward, running what falls due.'

  static override description =
    'Moves the clock by a duration or to a time and runs every action that falls due on the way ' +
    '(session expiry, settlement, payouts, webhook retries) in time order. The clock never goes back.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 2h',
    '<%= config.bin %> <%= command.id %> 1d12h',
    '<%= config.bin %> <%= command.id %> --to 2027-02-02T00:00:00Z',
    '<%= config.bin %> <%= command.id %> 3d --json',
  ]

  static override args = {
    duration: Args.custom<number>({
      description: `How far to move: whole numbers with units w, d, h, m, s, ms, largest first (90s, 2h, 1d12h); at most ${MAX_ADVANCE_DAYS}d.`,
      parse: usageParser(parseAdvance),
    })(),
  }

  static override flags = {
    to: Flags.custom<number>({
      description: 'Move to this time instead: ISO 8601 (2026-01-01T09:00:00Z) or Unix milliseconds.',
      parse: usageParser(parseInstant),
    })(),
  }

  async run(): Promise<AdvanceClockResponse> {
    const { args, flags } = await this.parse(ClockAdvance)
    const request = advanceRequest(args.duration, flags.to)
    const result = await (await this.client(flags)).advanceClock(request)

    this.printFields([['now', `${formatTime(result.now)} (${result.now})`]])
    this.log()
    this.printTable(
      result.ran,
      [
        { header: 'AT', value: (action) => formatTime(action.at) },
        { header: 'KIND', value: (action) => action.kind },
        { header: 'DESCRIPTION', value: (action) => action.description },
      ],
      'No actions were due.',
    )
    return result
  }
}

/** A duration the API takes: checked here so that the refusal is in days, not the API's `ms`, and nothing is sent. */
function parseAdvance(input: string): number {
  const ms = parseDuration(input)
  if (ms > MAX_ADVANCE_MS) {
    throw new Error(`Invalid duration "${input}": one advance moves the clock at most ${MAX_ADVANCE_DAYS}d; advance again to go further.`)
  }
  return ms
}

function advanceRequest(duration: number | undefined, to: number | undefined): AdvanceClockRequest {
  if (duration !== undefined && to !== undefined) {
    throw usageError(`Give either a duration (e.g. \`${bulaCommand('clock advance 2h')}\`) or --to <time>, not both.`)
  }
  if (duration !== undefined) return { ms: duration }
  if (to !== undefined) return { to }
  throw usageError(`Say how far to move the clock: a duration (e.g. \`${bulaCommand('clock advance 2h')}\`) or --to <time>.`)
}
