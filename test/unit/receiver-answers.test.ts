import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { forwardEvent } from '../../src/listen/forward.js'
import { checkWebhookReceiver } from '../../src/webhooks/check.js'

// `bula listen` and `bula webhooks check` against a receiver that answers 200 and then
// sends 1 MiB after 1 MiB for ever: each reads a bounded part of it and lets the
// connection go, as the simulator's deliveries do (docs/webhooks.md, "Delivery").

let sent = 0
let closed = 0
const endless = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(1 << 20, 'x')
    // Counts every chunk handed to the socket, also the one that fills its buffer.
    const pump = (): void => {
      while (!res.destroyed) {
        sent += chunk.length
        if (!res.write(chunk)) {
          res.once('drain', pump)
          return
        }
      }
    }
    res.on('close', () => closed++)
    pump()
  })
})
let url: string
beforeAll(async () => {
  await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hooks`
})
afterAll(async () => {
  endless.closeAllConnections()
  await new Promise((resolve) => endless.close(resolve))
})
beforeEach(() => {
  sent = 0
  closed = 0
})

/** Far less than the gigabytes an unbounded read takes in the 10 s before it times out; room for the sockets' buffers. */
const BOUNDED = 64 * 1024 * 1024

describe('an endless answer', () => {
  it('bula listen reports the 200 with the start of the answer, and hangs up', async () => {
    const result = await forwardEvent({ eventId: 'evt_1', type: 'payment.succeeded', createdAt: null, body: '{}' }, { url, secret: 'whsec_test' })
    expect(result).toMatchObject({ status: 200, error: null, response: 'x'.repeat(200) })
    await expect.poll(() => closed).toBe(1)
    expect(sent).toBeLessThan(BOUNDED)
  })

  it('bula webhooks check takes each status line as the answer, and hangs up', async () => {
    const result = await checkWebhookReceiver({ url, secret: 'whsec_test', timeoutMs: 5_000, send: fetch })
    expect(result.cases.map((c) => [c.status, c.error])).toEqual(result.cases.map(() => [200, null]))
    await expect.poll(() => closed).toBe(result.cases.length)
    expect(sent).toBeLessThan(BOUNDED)
  })
})
