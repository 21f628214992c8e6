import { Flags, ux } from '@oclif/core'
import { BaseCommand } from '../src/cli/base-command.js'
import { canDrawLiveView } from '../src/cli/output.js'
import { usageParser } from '../src/cli/usage.js'
import { listen, resolveListenSecret, type ListenReporter } from '../src/listen/listen.js'
import { parseEventTypes, parseForwardUrl } from '../src/listen/options.js'
import { jsonLinesReporter, plainReporter } from '../src/listen/report.js'
import { onStopSignal } from '../src/cli/stop-signals.js'

export default class Listen extends BaseCommand<{ secret: string } | undefined> {
  static override summary = 'Forward the merchant\'s events to a local receiver, signed with a stable whsec_ secret.'

  static override description =
    'Follows the simulator\'s event stream for the key\'s merchant and mode and POSTs each event to --forward-to ' +
    'exactly as a webhook delivery: same body, Service-Signature made with the listen secret, real Unix-seconds ' +
    'Service-Timestamp, X-Service-Event-Id. The secret is printed at start and stays the same for this simulator, ' +
    'merchant and mode across restarts. A simulator that is not up yet is waited for. When the simulator stops or ' +
    'restarts, listen reconnects and resumes after the last event it saw, so nothing is missed or repeated. On a ' +
    'terminal it shows a live view; otherwise one line per delivery, or with --json one JSON object per line ' +
    '("waiting" while the simulator is not up yet, "ready", then "delivery", "disconnected", "reconnected"). ' +
    'Ctrl-C stops it.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> <%= command.id %> --forward-to localhost:3000/webhooks --events checkout_session.succeeded,checkout_session.failed',
    'export BULA_WEBHOOK_SECRET=$(<%= config.bin %> <%= command.id %> --print-secret)',
    '<%= config.bin %> <%= command.id %> --forward-to http://127.0.0.1:3000/webhooks --json',
  ]

  static override flags = {
    'forward-to': Flags.custom<string>({
      description: 'Your receiver\'s URL; http:// is assumed when no scheme is given.',
      exactlyOne: ['forward-to', 'print-secret'],
      parse: usageParser(parseForwardUrl),
    })(),
    events: Flags.custom<string[]>({
      description: 'Forward only these event types, comma-separated (default: every type).',
      parse: usageParser(parseEventTypes),
    })(),
    'print-secret': Flags.boolean({ description: 'Print only the listen secret and exit.' }),
  }

  async run(): Promise<{ secret: string } | undefined> {
    const { flags } = await this.parse(Listen)
    const client = await this.client(flags)
    const forwardTo = flags['forward-to']
    if (forwardTo === undefined) {
      const { secret } = await resolveListenSecret(client)
      this.log(secret)
      return { secret }
    }

    const write = (line: string): void => ux.stdout(line)
    const liveView =
      canDrawLiveView(process.stdout, process.env) && !this.jsonEnabled()
        ? // Loaded only here: ink and React take long to load and only the live view needs them.
          (await import('../src/ui/listen-view.js')).startListenView(this.colors)
        : undefined
    const reporter: ListenReporter = liveView ?? (this.jsonEnabled() ? jsonLinesReporter(write) : plainReporter(write, this.colors))

    const stopped = new AbortController()
    const stop = (): void => stopped.abort()
    const forgetSignals = onStopSignal(stop)
    try {
      await listen({
        client,
        forwardTo,
        events: flags.events,
        signal: stopped.signal,
        reporter,
        userAgent: this.config.userAgent,
      })
    } finally {
      forgetSignals()
      await liveView?.close()
    }
    return undefined
  }

  // One line per object, so that an error after "ready" keeps the output JSON lines.
  protected override logJson(json: unknown): void {
    ux.stdout(JSON.stringify(json))
  }
}
