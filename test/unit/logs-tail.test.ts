import { describe, expect, it } from 'vitest'
import type { BulaClient } from '../../src/client/bula-client.js'
import { ApiError } from '../../src/errors.js'
import { parsePathFilter, parseStatusFilter, tailRequestLog, type TailReporter } from '../../src/logs/tail.js'
import type { RequestLogEntry } from '../../src/schemas/index.js'

const entry = (requestId: string, path = '/v1/merchants/me'): RequestLogEntry => ({
  at: 0,
  mode: 'test',
  method: 'GET',
  path,
  status: 200,
  latencyMs: 1,
  idempotencyKey: null,
  requestId,
  fault: null,
})

/** A log stream that sends these entries, then ends as a stopped simulator's would. */
function streamOf(entries: RequestLogEntry[]): ReadableStream<Uint8Array> {
  const text = `retry: 1000\n: connected\n\n${entries.map((sent) => `event: request\ndata: ${JSON.stringify(sent)}\n\n`).join('')}`
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text))
      controller.close()
    },
  })
}

interface Connection {
  /** Calls logged before this connection opens; with `restarted`, the whole new log. */
  logged: RequestLogEntry[]
  restarted?: boolean
  /** What the stream then sends before it ends. */
  sends: RequestLogEntry[]
}

/**
 * A simulator whose log starts with two calls and a read of the log, and
 * whose every connection is the next of `connections`. Past the last one it
 * stops the tail.
 */
function fakeSimulator(connections: Array<Connection | ApiError>, stop: AbortController) {
  let log: RequestLogEntry[] = [entry('req_old'), entry('req_1'), entry('req_read', '/_sim/logs?limit=1000')]
  const reads: Array<Record<string, unknown>> = []
  const client = {
    listRequestLog: async (query: Record<string, unknown>) => {
      reads.push(query)
      return { data: [...log].reverse() }
    },
    openRequestLogStream: async () => {
      const next = connections.shift()
      if (next === undefined) {
        stop.abort()
        throw new Error('stopped')
      }
      if (next instanceof ApiError) throw next
      log = next.restarted ? next.logged : [...log, ...next.logged]
      return streamOf(next.sends)
    },
  } as unknown as BulaClient
  return { client, reads }
}

function recorder() {
  const seen: string[] = []
  const reporter: TailReporter = {
    request: (shown) => seen.push(shown.requestId),
    disconnected: ({ reason }) => seen.push(`disconnected: ${reason}`),
    reconnected: () => seen.push('reconnected'),
  }
  return { seen, reporter }
}

const NO_WAIT = { initialMs: 1, maxMs: 1 }

describe('tailRequestLog', () => {
  it('shows the recent calls, then new ones, and after a reconnect the ones missed, each once', async () => {
    const stop = new AbortController()
    const { seen, reporter } = recorder()
    const { client, reads } = fakeSimulator(
      [
        // req_2 finished between the first read and the stream opening: caught up, then not shown again from the stream.
        { logged: [entry('req_2')], sends: [entry('req_2'), entry('req_3'), entry('req_tail', '/_sim/logs/stream')] },
        new ApiError(0, 'connection_failed', 'Could not reach the simulator.'),
        // Back: req_4 and req_5 were made while it was down.
        { logged: [entry('req_3'), entry('req_tail', '/_sim/logs/stream'), entry('req_4'), entry('req_5')], sends: [entry('req_5'), entry('req_6')] },
      ],
      stop,
    )
    await tailRequestLog({ client, filter: { status: '2xx' }, recent: 1, follow: true, signal: stop.signal, reporter, backoff: NO_WAIT })
    expect(seen).toEqual([
      'req_1',
      'req_2',
      'req_3',
      'disconnected: The simulator closed the stream.',
      'disconnected: Could not reach the simulator.',
      'reconnected',
      'req_4',
      'req_5',
      'req_6',
      'disconnected: The simulator closed the stream.',
    ])
    expect(reads.every((query) => query.status === '2xx')).toBe(true)
  })

  it('shows every call a restarted simulator logged, since its log starts afresh', async () => {
    const stop = new AbortController()
    const { seen, reporter } = recorder()
    const { client } = fakeSimulator([{ logged: [entry('req_new_1'), entry('req_new_2')], restarted: true, sends: [] }], stop)
    await tailRequestLog({ client, filter: {}, recent: 20, follow: true, signal: stop.signal, reporter, backoff: NO_WAIT })
    expect(seen.filter((line) => line.startsWith('req_'))).toEqual(['req_old', 'req_1', 'req_new_1', 'req_new_2'])
  })

  it('stops on a refusal that a retry cannot fix', async () => {
    const stop = new AbortController()
    const { reporter } = recorder()
    const { client } = fakeSimulator([new ApiError(401, 'invalid_api_key', 'Revoked.')], stop)
    await expect(tailRequestLog({ client, filter: {}, recent: 5, follow: true, signal: stop.signal, reporter, backoff: NO_WAIT })).rejects.toMatchObject({
      code: 'invalid_api_key',
    })
  })

  it('reads the recent calls only, without following', async () => {
    const stop = new AbortController()
    const { seen, reporter } = recorder()
    const { client } = fakeSimulator([], stop)
    await tailRequestLog({ client, filter: {}, recent: 5, follow: false, signal: stop.signal, reporter })
    expect(seen).toEqual(['req_old', 'req_1'])
  })
})

describe('the filters', () => {
  it('take one status or a class, and the start of a path', () => {
    expect(parseStatusFilter('404')).toBe('404')
    expect(parseStatusFilter('4XX')).toBe('4xx')
    for (const bad of ['4', '40x', '600', 'xx']) expect(() => parseStatusFilter(bad)).toThrow(/give one status \(404\) or a class \(4xx\)/)
    expect(parsePathFilter('/v1/invoices')).toBe('/v1/invoices')
    expect(() => parsePathFilter('v1/invoices')).toThrow(/start of a path/)
  })
})
