import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { followEventStream, untilReachable, type FollowOptions } from '../../src/listen/follow.js'
import { NotAnEventStreamError } from '../../src/listen/sse.js'

const BACKOFF = { initialMs: 1, maxMs: 4 }

/** A stream body with these SSE messages, then its end. */
function streamOf(...ids: string[]): ReadableStream<Uint8Array> {
  const text = ids.map((id) => `id: ${id}\nevent: payment.succeeded\ndata: {"event_id":"${id}"}\n\n`).join('')
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(`: connected\n\n${text}`))
      controller.close()
    },
  })
}

const refused = () => new ApiError(0, 'connection_failed', 'Could not reach the simulator.')

/**
 * Runs followEventStream against a scripted series of connections (each a
 * body or an error), aborting once the script is used up.
 */
async function follow(script: Array<ReadableStream<Uint8Array> | Error>, options: Partial<FollowOptions> = {}) {
  const stop = new AbortController()
  const log: string[] = []
  const opened: Array<string | undefined> = []
  let next = 0
  await followEventStream({
    open: async (lastEventId) => {
      opened.push(lastEventId)
      const step = script[next++]
      if (step === undefined) {
        stop.abort()
        throw new Error('aborted')
      }
      if (step instanceof Error) throw step
      return step
    },
    signal: stop.signal,
    backoff: BACKOFF,
    onConnected: ({ lastEventId }) => log.push(`connected after ${lastEventId}`),
    onDisconnected: ({ reason, retryInMs }) => log.push(`disconnected (${reason}) retry in ${retryInMs}`),
    onMessage: async (message) => {
      log.push(`message ${message.id}`)
    },
    ...options,
  })
  return { log, opened }
}

describe('followEventStream', () => {
  it('reconnects after the stream ends or cannot open, resuming after the last message, with doubling backoff reset on connect', async () => {
    const { log, opened } = await follow([streamOf('e1', 'e2'), refused(), refused(), refused(), refused(), streamOf('e3'), refused()], {
      lastEventId: 'e0',
    })
    expect(opened).toEqual(['e0', 'e2', 'e2', 'e2', 'e2', 'e2', 'e3', 'e3'])
    expect(log).toEqual([
      'connected after e0',
      'message e1',
      'message e2',
      'disconnected (The simulator closed the stream.) retry in 1',
      'disconnected (Could not reach the simulator.) retry in 2',
      'disconnected (Could not reach the simulator.) retry in 4',
      'disconnected (Could not reach the simulator.) retry in 4',
      'disconnected (Could not reach the simulator.) retry in 4',
      'connected after e2',
      'message e3',
      'disconnected (The simulator closed the stream.) retry in 1',
      'disconnected (Could not reach the simulator.) retry in 2',
    ])
  })

  // After a kill -9 of the simulator, listen said "Disconnected: terminated.": fetch's word for a body cut short.
  it('says a stream cut in the middle broke, not fetch\'s "terminated"', async () => {
    const cut = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(': connected\n\n'))
        controller.error(Object.assign(new TypeError('terminated'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }))
      },
    })
    const { log } = await follow([cut])
    expect(log).toEqual(['connected after undefined', 'disconnected (The connection to the simulator broke (it was stopped or restarted).) retry in 1'])
  })

  it('handles one message at a time, in order', async () => {
    const handled: string[] = []
    await follow([streamOf('e1', 'e2', 'e3')], {
      onMessage: async (message) => {
        handled.push(`start ${message.id}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
        handled.push(`end ${message.id}`)
      },
    })
    expect(handled).toEqual(['start e1', 'end e1', 'start e2', 'end e2', 'start e3', 'end e3'])
  })

  it('stops on a refusal that a retry cannot fix', async () => {
    const revoked = new ApiError(401, 'invalid_api_key', 'Invalid API key.')
    await expect(follow([streamOf('e1'), revoked])).rejects.toBe(revoked)
  })

  // Found by an adversarial pass: a server streaming one endless line was reconnected to every 0.6 s, 16 MiB each time.
  it('stops on a stream that is not a simulator\'s, instead of reading it again', async () => {
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(`data: ${'A'.repeat(1024 * 1024)}`))
      },
    })
    await expect(follow([endless, streamOf('e1')])).rejects.toBeInstanceOf(NotAnEventStreamError)
  })

  it('resolves at once when stopped while waiting to reconnect', async () => {
    const stop = new AbortController()
    const started = performance.now()
    await followEventStream({
      open: async () => {
        throw refused()
      },
      signal: stop.signal,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      onConnected: () => {},
      onDisconnected: () => stop.abort(),
      onMessage: async () => {},
    })
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})

describe('untilReachable', () => {
  /** Runs untilReachable over a script of outcomes (an error to throw, or a value to answer). */
  async function reach(script: Array<Error | string>) {
    const waits: string[] = []
    let tries = 0
    const result = await untilReachable(
      async () => {
        const step = script[tries++]!
        if (step instanceof Error) throw step
        return step
      },
      { signal: new AbortController().signal, backoff: BACKOFF, onWaiting: ({ reason, retryInMs }) => waits.push(`${reason} ${retryInMs}`) },
    )
    return { result, waits, tries }
  }

  it('waits for a simulator that is not up yet, with doubling backoff, and answers what the first reachable try gave', async () => {
    expect(await reach([refused(), refused(), refused(), refused(), 'me'])).toEqual({
      result: 'me',
      waits: ['Could not reach the simulator. 1', 'Could not reach the simulator. 2', 'Could not reach the simulator. 4', 'Could not reach the simulator. 4'],
      tries: 5,
    })
  })

  it('throws any answer at once: only an unreachable simulator is waited for', async () => {
    const unknownKey = new ApiError(401, 'invalid_api_key', 'Invalid API key.')
    await expect(reach([refused(), unknownKey, 'me'])).rejects.toBe(unknownKey)
    const timeout = new ApiError(0, 'timeout', 'GET /v1/merchants/me got no answer within 30 s.')
    await expect(reach([timeout])).rejects.toBe(timeout)
  })

  it('resolves undefined at once when stopped while waiting', async () => {
    const stop = new AbortController()
    const started = performance.now()
    const result = await untilReachable(
      async () => {
        throw refused()
      },
      { signal: stop.signal, backoff: { initialMs: 60_000, maxMs: 60_000 }, onWaiting: () => stop.abort() },
    )
    expect(result).toBeUndefined()
    expect(performance.now() - started).toBeLessThan(1_000)
  })
})
