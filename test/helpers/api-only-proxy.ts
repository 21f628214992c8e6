import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ApiOnlyProxy {
  baseUrl: string
  close(): Promise<void>
}

/** The paths of the service's own interface; everything else (`/_sim`, the dashboard) is the simulator's. */
const FORWARDED = /^\/(v1|api-keys|webhook-endpoints)(\/|\?|$)/

/** Changes an answer on its way back, to play a target that breaks a rule; undefined keeps it. */
export type Rewrite = (request: { method: string; path: string }, response: { status: number; body: unknown }) => { status: number; body: unknown } | undefined

/**
 * A stand-in for "another target": a reverse proxy on loopback that forwards
 * only `/v1`, `/api-keys` and `/webhook-endpoints` to a simulator and answers
 * 404 to anything else, `/_sim` included, as the real service would. Hosted
 * pages keep the simulator's own address (its `hostedUrl`s name it).
 * `rewrite` may change JSON answers.
 */
export async function startApiOnlyProxy(targetBaseUrl: string, rewrite?: Rewrite): Promise<ApiOnlyProxy> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const path = req.url ?? '/'
      if (!FORWARDED.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'Not here.' } }))
        return
      }
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (name !== 'host' && name !== 'connection' && value !== undefined) headers.set(name, Array.isArray(value) ? value.join(',') : value)
      }
      try {
        const upstream = await fetch(`${targetBaseUrl}${path}`, {
          method: req.method,
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
          redirect: 'manual',
        })
        let body = Buffer.from(await upstream.arrayBuffer())
        let status = upstream.status
        const answer: Record<string, string> = {}
        upstream.headers.forEach((value, name) => {
          if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection' && name !== 'content-length') answer[name] = value
        })
        const changed = rewrite && answer['content-type']?.startsWith('application/json') ? rewrite({ method: req.method ?? 'GET', path }, { status, body: JSON.parse(body.toString('utf8')) }) : undefined
        if (changed) {
          status = changed.status
          body = Buffer.from(JSON.stringify(changed.body))
        }
        res.writeHead(status, answer).end(body)
      } catch (error) {
        res.writeHead(502).end(String(error))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
