import type { ChalkInstance } from 'chalk'
import { formatTime } from '../cli/output.js'
import { maskUrlCredentials } from '../cli/base-url.js'
import { bulaCommand } from '../cli/launch-command.js'
import { EVENT_TYPES } from '../schemas/enums.js'
import { printable } from '../terminal-text.js'
import type { ForwardResult } from './forward.js'
import type { ListenReady, ListenReporter } from './listen.js'

/** A 2xx: the receiver accepted the event. */
export const accepted = (result: ForwardResult): boolean => result.status !== null && result.status >= 200 && result.status < 300

/** `200`, or the reason no answer came (printable(): the receiver's connection error may quote it). */
export const describeOutcome = (result: ForwardResult): string => (result.status === null ? `error: ${printable(result.error ?? '')}` : String(result.status))

/** The reason as a sentence, whether or not it ends one already; printable(): it may be the server's error message. */
function asSentence(reason: string): string {
  const shown = printable(reason)
  return /[.!?]$/.test(shown) ? shown : `${shown}.`
}

/** `Disconnected: <reason>. Reconnecting in 2 s…` */
export function describeDisconnection(reason: string, retryInMs: number): string {
  return `Disconnected: ${asSentence(reason)} Reconnecting in ${retryInMs / 1000} s…`
}

/** `Waiting for the simulator: <reason>. Trying again in 2 s…`, before the first connection. */
export function describeWaiting(reason: string, retryInMs: number): string {
  return `Waiting for the simulator: ${asSentence(reason)} Trying again in ${retryInMs / 1000} s…`
}

// Wide enough for the longest event type, so that the event ids line up.
const TYPE_WIDTH = Math.max(...EVENT_TYPES.map((type) => type.length))

/** When the event happened on the merchant's clock, as every time in the CLI reads: the same moment the dashboard and `bula events` show. */
export const eventTime = (result: ForwardResult): string => formatTime(result.createdAt, { seconds: true })

/** A delivery's columns after its time: type, event id, outcome (coloured), latency. */
export function deliveryColumns(result: ForwardResult, colors: ChalkInstance): string {
  const outcome = describeOutcome(result)
  return [printable(result.type).padEnd(TYPE_WIDTH), printable(result.eventId), accepted(result) ? colors.green(outcome) : colors.red(outcome), `${result.latencyMs} ms`].join('  ')
}

/** Who is heard and where events go, for the first lines of any view (printable(): the merchant's name is data). */
export function describeReady(info: ListenReady): string[] {
  return [
    printable(`Forwarding ${info.mode}-mode events of ${info.merchantName} (${info.merchantId}) from ${maskUrlCredentials(info.baseUrl)} to ${info.forwardTo}`),
    ...(info.events ? [printable(`Only: ${info.events.join(', ')}`)] : []),
  ]
}

/** `--json`: one JSON object per line, `ready` first. */
export function jsonLinesReporter(write: (line: string) => void): ListenReporter {
  const emit = (line: Record<string, unknown>): void => write(JSON.stringify(line))
  return {
    ready: (info) => emit({ event: 'ready', ...info }),
    waiting: ({ reason, retryInMs }) => emit({ event: 'waiting', reason, retryInMs }),
    reconnected: ({ lastEventId }) => emit({ event: 'reconnected', lastEventId: lastEventId ?? null }),
    disconnected: ({ reason, retryInMs }) => emit({ event: 'disconnected', reason, retryInMs }),
    delivery: ({ at, ...result }) => emit({ event: 'delivery', time: new Date(at).toISOString(), ...result }),
  }
}

/**
 * Not a terminal (a pipe, a log file): one plain line per happening. While
 * the simulator stays down (or is not up yet), a retry that fails the same
 * way adds no line.
 */
export function plainReporter(write: (line: string) => void, colors: ChalkInstance): ListenReporter {
  let lastReason: string | undefined
  return {
    ready: (info) => {
      write(colors.bold('Ready.') + ' ' + describeReady(info).join('\n'))
      write(`Webhook signing secret: ${colors.cyan(info.secret)} (the same on every run; \`${bulaCommand('listen --print-secret')}\` prints it)`)
      write('Press Ctrl-C to stop.')
    },
    waiting: ({ reason, retryInMs }) => {
      if (reason === lastReason) return
      lastReason = reason
      write(colors.yellow(describeWaiting(reason, retryInMs)))
    },
    reconnected: ({ lastEventId }) => {
      lastReason = undefined
      write(colors.green(`Reconnected${lastEventId === undefined ? '' : `; resuming after ${lastEventId}`}.`))
    },
    disconnected: ({ reason, retryInMs }) => {
      if (reason === lastReason) return
      lastReason = reason
      write(colors.yellow(describeDisconnection(reason, retryInMs)))
    },
    delivery: (result) => write(`${eventTime(result)}  ${deliveryColumns(result, colors)}`),
  }
}
