import { once } from 'node:events'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { MAX_UNREAD_BYTES } from '../../server/http/routes/event-stream.js'
import { DashboardAgent } from '../helpers/dashboard.js'
import { DAY, call, client, signupMerchant, useTestServer } from '../helpers/http.js'

// Issue 12, items 7 and 10: what a key opened lasts only as long as the key (docs/security.md).

/** A merchant with a second secret key, the one the attack is made with, and the id of that key. */
async function merchantWithSpareKey() {
  const { keys } = await signupMerchant(server().baseUrl)
  const owner = client(server().baseUrl, keys.secret)
  const spare = (await owner.post('/v1/api-keys', { type: 'secret' })).body.key as { id: string; plaintext: string }
  return { owner, spare }
}

/** Opens a stream and resolves with how long after `trigger` ran the server ended it (or rejects after `withinMs`). */
async function streamEndsAfter(path: string, secret: string, trigger: () => Promise<unknown>, withinMs = 3000): Promise<number> {
  const controller = new AbortController()
  const response = await fetch(`${server().baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` }, signal: controller.signal })
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  await reader.read() // the "connected" comment
  await trigger()
  const triggered = performance.now()
  const timeout = setTimeout(() => controller.abort(), withinMs)
  try {
    for (;;) {
      const { done } = await reader.read()
      if (done) return performance.now() - triggered
    }
  } catch {
    throw new Error(`${path} was still open ${withinMs} ms after its key stopped working`)
  } finally {
    clearTimeout(timeout)
  }
}

const server = useTestServer()
describe('streams close with their key (item 7)', () => {
  it.each(['/_sim/events/stream', '/_sim/logs/stream'])('%s ends within a second of its key being revoked', async (path) => {
    const { owner, spare } = await merchantWithSpareKey()
    const closedAfter = await streamEndsAfter(path, spare.plaintext, () => owner.post(`/v1/api-keys/${spare.id}/revoke`))
    expect(closedAfter).toBeLessThan(1000)
    // Reconnecting with it is refused.
    expect((await call(server().baseUrl, 'GET', path, { key: spare.plaintext })).status).toBe(401)
  })

  it('a stream opened with a rotated key ends once the clock passes its overlap', async () => {
    const { owner, spare } = await merchantWithSpareKey()
    const rotated = (await owner.post(`/v1/api-keys/${spare.id}/rotate`)).body
    expect(rotated.key.plaintext).toMatch(/^sk_test_/)
    const closedAfter = await streamEndsAfter('/_sim/events/stream', spare.plaintext, () => owner.post('/_sim/clock/advance', { ms: 3 * DAY + 1 }))
    expect(closedAfter).toBeLessThan(1000)
  })

  it('a stream whose key still works stays open and keeps delivering', async () => {
    const { owner, spare } = await merchantWithSpareKey()
    const controller = new AbortController()
    const response = await fetch(`${server().baseUrl}/_sim/events/stream`, { headers: { authorization: `Bearer ${spare.plaintext}` }, signal: controller.signal })
    const reader = response.body!.getReader()
    await reader.read()
    await new Promise((resolve) => setTimeout(resolve, 1200))
    const session = (await owner.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': 'open-stream' } })).body
    await owner.post(`/v1/checkout-sessions/${session.id}/cancel`)
    let text = ''
    while (!text.includes('checkout_session.cancelled')) text += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
  })
})

describe('a reader that stops reading', () => {
  it('is dropped once it is MAX_UNREAD_BYTES behind, instead of the simulator holding every later line for it', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const { port } = new URL(server().baseUrl)
    // A client that asks for the log stream and then reads nothing.
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    socket.write(`GET /_sim/logs/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${keys.secret}\r\n\r\n`)
    await once(socket, 'data')
    socket.pause()
    // Each refused request is a log line of about 15 KB: 40 MB in all, far past the socket buffers and MAX_UNREAD_BYTES (4 MiB).
    const long = `/v1/checkout-sessions?x=${'a'.repeat(15_000)}`
    const lines = 2_700
    for (let sent = 0; sent < lines; sent += 10) {
      await Promise.all(Array.from({ length: 10 }, () => call(server().baseUrl, 'GET', long, { key: keys.secret })))
    }
    // Reading again, it gets what the socket buffers held and then the end: the rest was never kept for it.
    let received = 0
    let ended = false
    socket.on('data', (chunk: Buffer) => (received += chunk.length))
    socket.on('end', () => (ended = true))
    socket.on('error', () => (ended = true))
    socket.resume()
    await expect.poll(() => ended).toBe(true)
    expect(received).toBeLessThan(MAX_UNREAD_BYTES + (lines * 15_000) / 4)
  })
})

describe('dashboard sign-ins last only as long as their key (item 10)', () => {
  it('refuses a login link made with a key revoked since', async () => {
    const { owner, spare } = await merchantWithSpareKey()
    const link = await call(server().baseUrl, 'POST', '/_sim/dashboard/login-links', { key: spare.plaintext })
    expect(link.status).toBe(201)
    await owner.post(`/v1/api-keys/${spare.id}/revoke`)
    const agent = new DashboardAgent(server().baseUrl)
    const landed = await agent.get(new URL(link.body.url).pathname)
    expect(landed.status).toBe(401)
    expect(landed.html).toContain('made with a key that has since been revoked')
    expect(agent.signedIn).toBe(false)
  })

  it('ends a dashboard session whose key was revoked: no page, no new key', async () => {
    const { owner, spare } = await merchantWithSpareKey()
    const agent = await DashboardAgent.signIn(server().baseUrl, spare.plaintext)
    const developers = await agent.get('/dashboard/developers')
    expect(developers.status).toBe(200)
    const keysBefore = (await owner.get('/v1/api-keys')).body.data.length
    await owner.post(`/v1/api-keys/${spare.id}/revoke`)
    const page = await agent.get('/dashboard/developers')
    expect(page.status).toBe(303)
    expect(page.location).toBe('/dashboard/sign-in?ended=key')
    // The sign-in form says why, with a fixed message: nothing of the query is echoed.
    expect((await agent.get(page.location!)).html).toContain('You were signed out: the key you signed in with was revoked, or its rotation overlap ended.')
    expect((await agent.get('/dashboard/sign-in?ended=%3Cscript%3E')).html).not.toMatch(/signed out|script/i)
    // A form filled in before the revoke is refused too.
    const minted = await agent.post('/dashboard/developers/keys', { _csrf: /name="_csrf" value="([^"]+)"/.exec(developers.html)![1]!, type: 'secret' })
    expect(minted.status).toBe(403)
    expect((await owner.get('/v1/api-keys')).body.data.length).toBe(keysBefore)
  })
})
