import type { BulaClient } from '../client/bula-client.js'
import { withLaunchedCommands } from '../cli/launch-command.js'
import type { Mode } from '../schemas/index.js'
import { followEventStream, untilReachable, type Backoff } from './follow.js'
import { forwardEvent, type ForwardResult } from './forward.js'
import { listenSecret } from './secrets.js'

/** What `bula listen` shows once the stream is open. */
export interface ListenReady {
  forwardTo: string
  secret: string
  baseUrl: string
  merchantId: string
  merchantName: string
  mode: Mode
  /** Only these types are forwarded; null for every type. */
  events: string[] | null
}

/** How `bula listen` shows what happens: plain lines, JSON lines or the live view. */
export interface ListenReporter {
  /** The first connection: from now on every event is forwarded. */
  ready(info: ListenReady): void
  /** The simulator is not up yet at start (connection refused): listen tries again in `retryInMs`. */
  waiting(info: { reason: string; retryInMs: number }): void
  /** Connected again after a disconnection; missed events follow first. */
  reconnected(info: { lastEventId: string | undefined }): void
  disconnected(info: { reason: string; retryInMs: number }): void
  delivery(result: ForwardResult): void
}

export interface ListenOptions {
  client: BulaClient
  forwardTo: string
  /** Forward only these event types; default every type. */
  events?: readonly string[]
  signal: AbortSignal
  reporter: ListenReporter
  userAgent?: string
  backoff?: Backoff
}

/** The event's `createdAt` from its payload: the merchant's clock, not the wall's. */
function createdAtOf(body: string): number | null {
  try {
    const { createdAt } = JSON.parse(body) as { createdAt?: unknown }
    return typeof createdAt === 'number' ? createdAt : null
  } catch {
    return null
  }
}

/** The key's merchant and mode, and the listen secret saved for them. */
export async function resolveListenSecret(client: BulaClient): Promise<{ secret: string; merchantId: string; merchantName: string; mode: Mode }> {
  const me = await client.getMe()
  const secret = await listenSecret({ baseUrl: client.baseUrl, merchantId: me.id, mode: me.mode })
  return { secret, merchantId: me.id, merchantName: me.name, mode: me.mode }
}

/**
 * `bula listen`: follows the merchant's event stream of the key's mode and
 * forwards each event, one at a time and in order, to `forwardTo`, signed
 * with the listen secret. Waits for a simulator that is not up yet. Resolves
 * when `signal` aborts; throws when the simulator refuses the key.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const { client, reporter } = options
  const start = await untilReachable(
    async () => ({
      ...(await resolveListenSecret(client)),
      // Resuming after the newest event from the first connection on means that
      // an event logged while the stream opens, or during a disconnection before
      // the first event, is still delivered.
      newest: (await client.listEvents({ limit: 1 })).data[0],
    }),
    // The client's "Start it with `npx bula serve …`" names bula as the CLI was started, as an error's message does.
    { signal: options.signal, backoff: options.backoff, onWaiting: (info) => reporter.waiting({ ...info, reason: withLaunchedCommands(info.reason) }) },
  )
  if (start === undefined) return
  const { secret, newest, ...merchant } = start
  const only = options.events && new Set(options.events)
  let connectedBefore = false
  await followEventStream({
    open: (lastEventId, signal) => client.openEventStream({ lastEventId, signal }),
    lastEventId: newest?.event_id,
    signal: options.signal,
    backoff: options.backoff,
    onConnected: (info) => {
      if (connectedBefore) return reporter.reconnected(info)
      connectedBefore = true
      reporter.ready({
        forwardTo: options.forwardTo,
        secret,
        baseUrl: client.baseUrl,
        ...merchant,
        events: options.events ? [...options.events] : null,
      })
    },
    onDisconnected: (info) => reporter.disconnected(info),
    onMessage: async (message) => {
      if (only && !only.has(message.event)) return
      const result = await forwardEvent(
        { eventId: message.id, type: message.event, createdAt: createdAtOf(message.data), body: message.data },
        { url: options.forwardTo, secret, userAgent: options.userAgent, signal: options.signal },
      )
      // A delivery cut short by Ctrl-C is not one to report.
      if (!options.signal.aborted) reporter.delivery(result)
    },
  })
}
