import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../src/cli/base-command.js'
import { nearestDotted } from '../src/cli/suggest.js'
import { usageError } from '../src/cli/usage.js'
import { triggerFixturePath, triggerRecipes } from '../src/fixtures/fixture.js'
import { triggerEvent, type TriggerResult } from '../src/fixtures/trigger.js'
import { describeStepResult } from '../src/fixtures/runner.js'
import { eventColumns } from '../src/ui/webhook-fields.js'

interface TriggerList {
  data: Array<{ event: string; description: string }>
}

export default class Trigger extends BaseCommand<TriggerResult | TriggerList> {
  static override summary = 'Make the simulator send an event, by creating the objects that cause it.'

  static override description =
    'Runs the event\'s recipe (templates/fixtures/<event>.json) through the API, such as creating a Checkout Session ' +
    'and paying it, so the event is as real as any other: logged, streamed to `bula listen` and delivered to the ' +
    'endpoints. Prints the objects created and the events they produced. --list shows the events it knows.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> checkout_session.succeeded',
    '<%= config.bin %> <%= command.id %> payment.failed --json',
    '<%= config.bin %> <%= command.id %> --list',
  ]

  static override args = {
    event: Args.string({ description: 'The event type to trigger (see --list).' }),
  }

  static override flags = {
    list: Flags.boolean({ description: 'List the events that can be triggered.' }),
  }

  async run(): Promise<TriggerResult | TriggerList> {
    const { args, flags } = await this.parse(Trigger)
    const recipes = await triggerRecipes()
    if (flags.list) {
      this.printTable(
        recipes,
        [
          { header: 'EVENT', value: (recipe) => recipe.event },
          { header: 'WHAT IT DOES', value: (recipe) => recipe.description },
        ],
        'No recipes.',
      )
      return { data: recipes }
    }
    const known = recipes.map((recipe) => recipe.event)
    if (args.event === undefined || !known.includes(args.event)) {
      // A mistyped event gets the one meant first, as a mistyped command or flag does.
      const meant = args.event === undefined ? undefined : nearestDotted(args.event, known)
      const given = args.event === undefined ? 'Name an event to trigger' : `Cannot trigger "${args.event}"${meant ? `: did you mean ${meant}?` : ''}`
      throw usageError(`${given}${meant ? ' Otherwise' : ':'} choose one of ${known.join(', ')}.`)
    }

    const result = await triggerEvent(await this.client(flags), args.event)
    this.log(`Triggered ${this.colors.bold(result.event)}.\n`)
    this.printTable(
      result.steps,
      [
        { header: 'STEP', value: (step) => step.name ?? '-' },
        { header: 'REQUEST', value: (step) => `${step.method} ${step.path}` },
        { header: 'RESULT', value: describeStepResult },
      ],
      'No steps.',
    )
    this.log('')
    this.printTable(result.events, eventColumns, 'No events were logged.')
    if (!result.events.some((event) => event.type === result.event)) {
      this.warn(`The recipe ran but logged no ${result.event} event: check ${triggerFixturePath(result.event)}.`)
    }
    return result
  }
}
