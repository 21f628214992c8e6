import { afterAll } from 'vitest'
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Receiver {
  url: string
  requests: ReceivedRequest[]
  /** Decides each answer's status (200 by default), how long to wait before answering, and its body ("ok" or "receiver says no"). */
  respondWith(answer: (request: ReceivedRequest, index: number) => number | Answer): void
  /**
   * Resolves once `count` requests have arrived, or rejects after the
   * timeout: 15 s by default, as long as vitest.config.ts gives a poll, since
   * on a loaded machine deliveries made in the test's own worker took over 5 s.
   */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

/** A receiver's answer: its status, after how long, and what it says. */
export interface Answer {
  status: number
  afterMs?: number
  body?: string
}

export interface ReceiverOptions {
  /** HTTPS, with a key and certificate in PEM. */
  tls?: { key: string; cert: string }
  /** A given port instead of one the system picks; taken, it rejects with EADDRINUSE. */
  port?: number
}

/** A real HTTP receiver on loopback that records what it is sent. */
export async function startReceiver(path = '/webhooks', { tls, port: wanted = 0 }: ReceiverOptions = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = []
  let answer: (request: ReceivedRequest, index: number) => number | Answer = () => 200
  const waiters: (() => void)[] = []
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(request)
      const decided = answer(request, requests.length - 1)
      const { status, afterMs = 0, body = status < 300 ? 'ok' : 'receiver says no' } = typeof decided === 'number' ? { status: decided } : decided
      for (const wake of waiters.splice(0)) wake()
      setTimeout(() => {
        res.statusCode = status
        res.end(body)
      }, afterMs)
    })
  }
  const server: Server = tls ? createTlsServer(tls, listener) : createServer(listener)
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(wanted, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}${path}`,
    requests,
    respondWith: (fn) => {
      answer = fn
    },
    waitFor: async (count, timeoutMs = 15_000) => {
      const deadline = performance.now() + timeoutMs
      while (requests.length < count) {
        const left = deadline - performance.now()
        if (left <= 0) throw new Error(`receiver got ${requests.length} requests, expected ${count}`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, Math.min(left, 100))
        })
      }
      return requests
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** For a test file: the function starts a receiver, and every receiver it started is closed after the file's tests. */
export function useReceivers(): (path?: string, options?: ReceiverOptions) => Promise<Receiver> {
  const started: Receiver[] = []
  afterAll(() => Promise.all(started.map((receiver) => receiver.close())))
  return async (path, options) => {
    const receiver = await startReceiver(path, options)
    started.push(receiver)
    return receiver
  }
}

/**
 * Ports fetch refuses, as browsers do ("bad port"), where a developer's
 * receiver may still listen: a receiver on the first one free.
 */
export async function startReceiverOnBlockedPort(): Promise<Receiver> {
  for (const port of [6000, 6665, 6666, 6667, 6668, 6669, 10080, 4190, 5060]) {
    const receiver = await startReceiver('/webhooks', { port }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') return undefined
      throw error
    })
    if (receiver) return receiver
  }
  throw new Error('every blocked port is taken on this machine')
}
