import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { runConformance } from '../../src/conformance/index.js'
import { useTestServer } from '../helpers/http.js'
import { freePort } from '../helpers/ports.js'

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

// --webhook-url for a target that cannot reach this machine: a tunnel (here
// a forwarder on loopback with a path prefix of its own) in front of the
// suite's receiver on --webhook-port.
describe('bula conformance --webhook-url --webhook-port', () => {
  const server = useTestServer()
  const forwarded: string[] = []
  let tunnel: Server | undefined
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        tunnel?.closeAllConnections()
        if (tunnel) tunnel.close(() => resolve())
        else resolve()
      }),
  )

  it('registers endpoints at the public URL and receives through it', async () => {
    const webhookPort = await freePort()
    tunnel = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        forwarded.push(req.url ?? '')
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>
        const answer = await fetch(`http://127.0.0.1:${webhookPort}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) })
        res.writeHead(answer.status).end(await answer.text())
      })
    })
    const tunnelPort = await listen(tunnel)
    const result = await runConformance({ baseUrl: server().baseUrl, only: ['webhooks/signature'], webhookUrl: `http://127.0.0.1:${tunnelPort}/hooks/`, webhookPort })
    expect(result.cases).toEqual([expect.objectContaining({ id: 'webhooks/signature', outcome: 'pass' })])
    expect(forwarded).toContain('/hooks/conformance/1')
  })
})
