import { beforeAll, describe, expect, it } from 'vitest'
import { DashboardAgent } from '../helpers/dashboard.js'
import { call, useTestServer } from '../helpers/http.js'
import { idempotencyKey, merchantWithLiveData, readStream } from '../helpers/live-data.js'

// Issue 12: every surface answers a test key within test mode (docs/security.md, "Modes").

let m: Awaited<ReturnType<typeof merchantWithLiveData>>
/** Ids of the merchant's own test objects, so that the walk reaches each route's success path too. */
let testIds: string[]

const server = useTestServer()
beforeAll(async () => {
  m = await merchantWithLiveData(server().baseUrl)
  const session = (await m.test.get('/v1/checkout-sessions')).body.data[0]
  const endpoint = (await m.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/test-hooks' })).body.endpoint
  const events = (await m.test.get('/_sim/events')).body.data
  const invoice = (await m.test.post('/v1/invoices', { customerName: 'Test', dueDate: '2026-12-31', items: [{ description: 'X', quantity: 1, unitPrice: 100 }] }, idempotencyKey())).body
  testIds = [session.id, endpoint.id, String(invoice.id), ...events.map((event: { event_id: string }) => event.event_id)]
})

/** Live markers in `text`; the id a request itself named may be echoed back (a page's own address), which tells nothing. */
const leaksIn = (text: string, asked?: string): string[] => m.liveMarkers.filter((marker) => marker !== asked && text.includes(marker))

describe('the isolation walk', () => {
  it('answers a test key without a live id, live secret or live e-mail on every route of /openapi.json, with every id', async () => {
    const document = (await call(server().baseUrl, 'GET', '/openapi.json')).body
    const leaks: string[] = []
    let requests = 0
    type Operation = { responses: Record<string, { content?: object }> }
    const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    )
    // Reads first: the request log then holds only the setup's calls, not the ids this walk is about to try.
    const phase = ({ path, method }: { path: string; method: string }) => (path.includes('{') ? 1 : method === 'get' ? 0 : 2)
    operations.sort((a, b) => phase(a) - phase(b))
    for (const { path, method, operation } of operations) {
      {
        const streams = JSON.stringify(operation.responses).includes('text/event-stream')
        const ids = path.includes('{') ? [...m.liveIds, ...testIds] : ['']
        for (const id of ids) {
          const url = path.replace(/\{[^}]+\}/g, id)
          requests++
          if (streams) {
            const { text } = await readStream(server().baseUrl, url, m.keys.secret, 50)
            leaks.push(...leaksIn(text).map((marker) => `${method.toUpperCase()} ${url}: ${marker}`))
            continue
          }
          const body = ['post', 'put', 'patch'].includes(method) ? {} : undefined
          const answer = await call(server().baseUrl, method.toUpperCase(), url, { key: m.keys.secret, body, ...idempotencyKey() })
          leaks.push(...leaksIn(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? ''), id).map((marker) => `${method.toUpperCase()} ${url}: ${marker}`))
          // Never a hint through a status: another mode's object is simply not there.
          if (m.liveIds.includes(id) && ![400, 404, 405].includes(answer.status)) leaks.push(`${method.toUpperCase()} ${url}: answered ${answer.status}`)
        }
      }
    }
    expect(requests).toBeGreaterThan(300)
    expect(leaks).toEqual([])
    // The live side is untouched by all of that.
    expect((await m.live.get(`/v1/checkout-sessions/${m.liveSession.id}`)).body.status).toBe('succeeded')
    expect((await m.live.get('/v1/webhook-endpoints')).body.data).toHaveLength(1)
  })

  it('streams opened with a test key carry no live event or live request while live activity happens', async () => {
    const liveActivity = async () => {
      const session = (await m.live.post('/v1/checkout-sessions', { amount: 1234, currency: 'FJD' }, idempotencyKey())).body
      await m.live.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
      m.liveMarkers.push(session.id)
    }
    for (const path of ['/_sim/events/stream', '/_sim/logs/stream']) {
      const { status, text } = await readStream(server().baseUrl, path, m.keys.secret, 300, liveActivity)
      expect(status).toBe(200)
      expect(leaksIn(text)).toEqual([])
    }
  })

  it('the dashboard signed in with a test key shows no live data on any page, and will not switch to live', async () => {
    const agent = await DashboardAgent.signIn(server().baseUrl, m.keys.secret)
    const pages = ['/', '/sessions', '/invoices', '/payouts', '/webhooks', '/events', '/events/rows', '/developers', '/settings', '/outbox']
    const withIds = ['/sessions/:id', '/invoices/:id', '/invoices/:id/pdf', '/payouts/:id', '/events/:id', '/outbox/:id', '/outbox/:id/html', '/outbox/:id/attachments/0'].flatMap((page) =>
      m.liveIds.map((id) => ({ page: page.replace(':id', id), id })),
    )
    const leaks: string[] = []
    for (const { page, id } of [...pages.map((page) => ({ page, id: undefined })), ...withIds]) {
      const answer = await agent.get(`/dashboard${page}`)
      leaks.push(...leaksIn(answer.html, id).map((marker) => `${page}: ${marker}`))
      if (id !== undefined && answer.status !== 404) leaks.push(`${page}: answered ${answer.status}`)
    }
    expect(leaks).toEqual([])
    const switched = await agent.follow(await agent.submit('/dashboard/sessions', '/dashboard/mode', { mode: 'live' }))
    expect(switched.html).toContain('Sign in with a live secret key')
    expect(leaksIn(switched.html)).toEqual([])
  })
})
