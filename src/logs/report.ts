import type { ChalkInstance } from 'chalk'
import { formatTime } from '../cli/output.js'
import { describeDisconnection } from '../listen/report.js'
import type { RequestLogEntry } from '../schemas/index.js'
import { printable } from '../terminal-text.js'
import type { TailReporter } from './tail.js'

// Wide enough for DELETE, most paths and latencies, so that the columns after them line up.
const METHOD_WIDTH = 6
const PATH_WIDTH = 40
const LATENCY_WIDTH = 9

/** The status coloured by its class: 2xx green, 3xx cyan, 4xx yellow, 5xx red; `---` for no answer at all (a reset fault). */
function colorStatus(status: number, colors: ChalkInstance): string {
  if (status === 0) return colors.red('---')
  const paint = status >= 500 ? colors.red : status >= 400 ? colors.yellow : status >= 300 ? colors.cyan : colors.green
  return paint(String(status))
}

/**
 * `2 Jan 2026, 22:00:05 FJT (10:00:05 UTC)  test  POST    /v1/checkout-sessions  201  12.5 ms  order-1  req_...`; `-` for no
 * idempotency key; a request an API fault struck ends with `FAULT lose_response flt_...`. What the client sent (path,
 * key) is shown printable().
 */
export function formatRequestLine(entry: RequestLogEntry, colors: ChalkInstance): string {
  const line = [
    formatTime(entry.at, { seconds: true }),
    printable(entry.mode),
    printable(entry.method).padEnd(METHOD_WIDTH),
    printable(entry.path).padEnd(PATH_WIDTH),
    colorStatus(entry.status, colors),
    `${entry.latencyMs} ms`.padStart(LATENCY_WIDTH),
    printable(entry.idempotencyKey ?? '-'),
    printable(entry.requestId),
  ].join('  ')
  return entry.fault ? `${line}  ${colors.magenta(printable(`FAULT ${entry.fault.action} ${entry.fault.id}`))}` : line
}

/** One line per call, and one per disconnection or reconnection (a retry failing the same way adds none). */
export function plainTailReporter(write: (line: string) => void, colors: ChalkInstance): TailReporter {
  let lastReason: string | undefined
  return {
    request: (entry) => write(formatRequestLine(entry, colors)),
    disconnected: ({ reason, retryInMs }) => {
      if (reason === lastReason) return
      lastReason = reason
      write(colors.yellow(describeDisconnection(reason, retryInMs)))
    },
    reconnected: () => {
      lastReason = undefined
      write(colors.green('Reconnected.'))
    },
  }
}

/** `--json`: one object per line, told apart by `event`: `request` (with the log entry's fields), `disconnected`, `reconnected`. */
export function jsonLinesTailReporter(write: (line: string) => void): TailReporter {
  const emit = (line: Record<string, unknown>): void => write(JSON.stringify(line))
  return {
    request: (entry) => emit({ event: 'request', ...entry }),
    disconnected: ({ reason, retryInMs }) => emit({ event: 'disconnected', reason, retryInMs }),
    reconnected: () => emit({ event: 'reconnected' }),
  }
}
