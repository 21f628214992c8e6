import type { BulaClient } from '../client/bula-client.js'
import { followEventStream, type Backoff } from '../listen/follow.js'
import { readSseMessages } from '../listen/sse.js'
import type { RequestLogEntry, RequestLogQuery } from '../schemas/index.js'

/** The request log's filters: an exact status (`404`) or a class (`4xx`), and a path prefix. */
export type RequestLogFilter = Pick<RequestLogQuery, 'status' | 'path'>

/** `--status`: one status (`404`) or a class (`4xx`), as the simulator filters. */
export function parseStatusFilter(input: string): string {
  const status = input.trim().toLowerCase()
  if (!/^[1-5]([0-9]{2}|xx)$/.test(status)) throw new Error(`Invalid status "${input}": give one status (404) or a class (4xx).`)
  return status
}

/** `--path`: the start of a path. */
export function parsePathFilter(input: string): string {
  if (!input.startsWith('/')) throw new Error(`Invalid path "${input}": give the start of a path, such as /v1/checkout-sessions.`)
  return input
}

/** How `bula logs tail` shows what happens. */
export interface TailReporter {
  request(entry: RequestLogEntry): void
  disconnected(info: { reason: string; retryInMs: number }): void
  reconnected(): void
}

export interface TailOptions {
  client: BulaClient
  filter: RequestLogFilter
  /** How many of the most recent matching calls to show first. */
  recent: number
  /** Go on with new calls as they finish, until `signal` aborts. */
  follow: boolean
  signal: AbortSignal
  reporter: TailReporter
  backoff?: Backoff
}

/** The simulator keeps this many calls per merchant: reading as many finds every one it still has. */
const LOG_SIZE = 1000

/**
 * `bula logs tail`: the `recent` newest matching API calls of the key's
 * merchant and mode, oldest first, then (with `follow`) every new one as it
 * finishes, until `signal` aborts. Reads of the request log itself (this
 * command's own calls) are left out. When the stream ends or cannot be opened,
 * it reconnects with backoff, as `bula listen` does, and first shows the
 * calls logged meanwhile. Throws when the simulator refuses the key.
 */
export async function tailRequestLog(options: TailOptions): Promise<void> {
  const { client, filter, reporter } = options
  // Read before following, so that a wrong address or key fails at once instead of retrying. All
  // of the log, since `recent` counts only the calls shown.
  const newestFirst = (await client.listRequestLog({ ...filter, limit: LOG_SIZE })).data
  for (const entry of newestFirst.filter(isShown).slice(0, options.recent).reverse()) reporter.request(entry)
  if (!options.follow) return
  let connectedBefore = false
  await followEventStream({
    open: (lastRequestId, signal) => openResumable(client, filter, lastRequestId, signal),
    lastEventId: newestFirst[0]?.requestId,
    signal: options.signal,
    backoff: options.backoff,
    onConnected: () => {
      if (connectedBefore) reporter.reconnected()
      connectedBefore = true
    },
    onDisconnected: (info) => reporter.disconnected(info),
    onMessage: async (message) => {
      reporter.request(JSON.parse(message.data) as RequestLogEntry)
    },
  })
}

/** A call is shown unless it reads the request log, as tail itself does on every (re)connection. */
const isShown = (entry: RequestLogEntry): boolean => !entry.path.startsWith('/_sim/logs')

/**
 * The live stream of calls, preceded by those logged after `after` (all that
 * the simulator still has when it is gone: a restarted simulator starts a new
 * log), as one event stream whose messages carry the call's request id as
 * their id. followEventStream resumes after the last id it handled, and the
 * simulator's log stream has no ids of its own.
 */
async function openResumable(
  client: BulaClient,
  filter: RequestLogFilter,
  after: string | undefined,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  // Opened before the catch-up read: a call finishing in between is in both, and shown once.
  const live = await client.openRequestLogStream({ query: filter, signal })
  let logged: RequestLogEntry[]
  try {
    logged = (await client.listRequestLog({ ...filter, limit: LOG_SIZE })).data
  } catch (error) {
    await live.cancel()
    throw error
  }
  const seen = logged.findIndex((entry) => entry.requestId === after)
  const missed = (seen < 0 ? logged : logged.slice(0, seen)).reverse()
  return ReadableStream.from(withIds(missed, live))
}

async function* withIds(missed: readonly RequestLogEntry[], live: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder()
  const message = (entry: RequestLogEntry): Uint8Array =>
    encoder.encode(`id: ${entry.requestId}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`)
  const shown = new Set<string>()
  for (const entry of missed.filter(isShown)) {
    shown.add(entry.requestId)
    yield message(entry)
  }
  for await (const { event, data } of readSseMessages(live)) {
    if (event !== 'request') continue
    const entry = JSON.parse(data) as RequestLogEntry
    if (isShown(entry) && !shown.has(entry.requestId)) yield message(entry)
  }
}
