import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A webhook delivery as the receiver got it. */
export interface Delivery {
  /** Lower-case header names. */
  headers: Record<string, string>
  rawBody: string
  /** The parsed JSON body, or undefined. */
  payload: { event_id?: string; type?: string; mode?: string; data?: { object?: Record<string, unknown> }; [field: string]: unknown } | undefined
  /** Wall-clock time it arrived, Unix ms. */
  receivedAt: number
  /** The status the receiver answered. */
  answered: number
}

/** Decides the receiver's answer to a delivery; 200 by default. */
export type Responder = (delivery: Omit<Delivery, 'answered'>, index: number) => number

/** One endpoint's mailbox: the deliveries to one path of the receiver. */
export class Inbox {
  readonly deliveries: Delivery[] = []
  respond: Responder = () => 200
  private readonly waiters = new Set<() => void>()

  constructor(readonly url: string) {}

  receive(delivery: Omit<Delivery, 'answered'>): number {
    const answered = this.respond(delivery, this.deliveries.length)
    this.deliveries.push({ ...delivery, answered })
    for (const wake of this.waiters) wake()
    return answered
  }

  /** The first delivery (from `from` on) that matches, waiting up to `timeoutMs`; undefined when none came. */
  async find(match: (delivery: Delivery) => boolean, timeoutMs: number, from = 0): Promise<Delivery | undefined> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const found = this.deliveries.slice(from).find(match)
      if (found) return found
      const left = deadline - performance.now()
      if (left <= 0) return undefined
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer)
          this.waiters.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, left)
        this.waiters.add(wake)
      })
    }
  }
}

/**
 * The suite's webhook receiver: a plain HTTP server on loopback, one inbox
 * per path, answering as each inbox's responder says. `publicUrl` is the
 * address the target posts to: the loopback address itself, or a tunnel
 * (`--webhook-url`) that forwards to this port.
 */
export class WebhookReceiver {
  private count = 0

  private constructor(
    private readonly server: Server,
    private readonly inboxes: Map<string, Inbox>,
    readonly publicUrl: string,
  ) {}

  static async start(options: { port?: number; publicUrl?: string } = {}): Promise<WebhookReceiver> {
    const inboxes = new Map<string, Inbox>()
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        // A tunnel may keep a path prefix of its own: the inbox is the path's tail.
        const tail = /\/conformance\/\d+$/.exec(new URL(req.url ?? '/', 'http://receiver').pathname)?.[0]
        const inbox = tail === undefined ? undefined : inboxes.get(tail)
        if (!inbox || req.method !== 'POST') {
          res.writeHead(404).end()
          return
        }
        const rawBody = Buffer.concat(chunks).toString('utf8')
        let payload: Delivery['payload']
        try {
          payload = JSON.parse(rawBody) as Delivery['payload']
        } catch {
          payload = undefined
        }
        const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : (value ?? '')]))
        const status = inbox.receive({ headers, rawBody, payload, receivedAt: Date.now() })
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no')
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
    })
    const { port } = server.address() as AddressInfo
    return new WebhookReceiver(server, inboxes, (options.publicUrl ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''))
  }

  /** A new inbox at its own path, so each endpoint's deliveries stay apart. */
  inbox(): Inbox {
    const path = `/conformance/${++this.count}`
    const inbox = new Inbox(`${this.publicUrl}${path}`)
    this.inboxes.set(path, inbox)
    return inbox
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }
}
