import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { usageParser } from '../../src/cli/usage.js'
import { parseDuration } from '../../src/duration.js'
import { API_FAULT_ACTIONS, API_FAULT_STATUSES } from '../../src/schemas/enums.js'
import type { ApiFault } from '../../src/schemas/index.js'
import { apiFaultColumns } from '../../src/ui/faults-and-doctor.js'

/** The longest a delay fault may hold an answer (the simulator's limit too). */
const MAX_DELAY_MS = 60_000

function parseDelay(input: string): number {
  const ms = parseDuration(input)
  if (ms < 1 || ms > MAX_DELAY_MS) throw new Error(`--delay must be 1ms to 60s, got "${input}".`)
  return ms
}

function parseProbability(input: string): number {
  const value = Number(input)
  if (input.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new Error(`--probability must be a number from 0 to 1, got "${input}".`)
  return value
}

export default class FaultsAdd extends BaseCommand<ApiFault> {
  static override summary = 'Make the next requests to a route fail, so you can test your client\'s retries.'

  static override description =
    'Adds an API fault for the key\'s merchant and mode. ROUTE is "*" or a method and a path as /openapi.json writes it ' +
    '("POST /v1/checkout-sessions", "GET /v1/invoices/{id}"). --action error answers --status (500, 502, 503 or 504; ' +
    'default 503) and changes nothing; delay answers after --delay (up to 60s); reset closes the connection unanswered; ' +
    'lose_response does the work and keeps it, then closes the connection unanswered: a retry with the same ' +
    'Idempotency-Key gets the original result. The fault is in force for the next --times matching requests (default 1), ' +
    'each struck with --probability, drawn from --seed (the same seed gives the same sequence). Other merchants and the ' +
    'other mode are never affected; /_sim/faults and /_sim/health never are.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> "POST /v1/checkout-sessions" --action lose_response --times 1',
    '<%= config.bin %> <%= command.id %> "POST /v1/checkout-sessions" --action error --status 502',
    '<%= config.bin %> <%= command.id %> "GET /v1/checkout-sessions/{id}" --action delay --delay 5s --times 3',
    '<%= config.bin %> <%= command.id %> "*" --action reset --times 100 --probability 0.2 --seed 7 --json',
  ]

  static override args = {
    route: Args.string({ description: '"*" or "METHOD /path" of /openapi.json, e.g. "POST /v1/checkout-sessions".', required: true }),
  }

  static override flags = {
    action: Flags.option({ description: 'What the fault does.', options: API_FAULT_ACTIONS, required: true })(),
    status: Flags.integer({ description: 'Status of an error fault: 500, 502, 503 or 504 (default 503).', options: API_FAULT_STATUSES.map(String) }),
    delay: Flags.custom<number>({ description: 'How long a delay fault holds the answer back: 1ms to 60s, e.g. 2s.', parse: usageParser(parseDelay) })(),
    times: Flags.integer({ description: 'How many matching requests the fault is in force for (default 1).', min: 1, max: 100_000 }),
    probability: Flags.custom<number>({ description: 'Share of those requests it strikes, 0 to 1 (default 1).', parse: usageParser(parseProbability) })(),
    seed: Flags.integer({ description: 'Seed of the probability draws (default 0).', min: 0, max: 2 ** 32 - 1 }),
  }

  async run(): Promise<ApiFault> {
    const { args, flags } = await this.parse(FaultsAdd)
    const fault = await (await this.client(flags)).addFault({
      route: args.route,
      action: flags.action,
      status: flags.status as (typeof API_FAULT_STATUSES)[number] | undefined,
      delayMs: flags.delay,
      times: flags.times,
      probability: flags.probability,
      seed: flags.seed,
    })
    this.printTable([fault], apiFaultColumns, '')
    this.printNotice(`Remove it with \`${bulaCommand(`faults remove ${fault.id}`)}\`, or all with \`${bulaCommand('faults clear')}\`.`)
    return fault
  }
}
