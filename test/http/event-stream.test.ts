import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { merchantModeGroup } from '../../server/store/collections.js'
import { client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'

interface StreamedEvent {
  id: string
  type: string
  data: { event_id: string; type: string; mode: string; data: { object: { id: string } } }
}

/** Reads Server-Sent Events from the stream until `count` messages arrived. */
async function readEvents(key: string, count: number, trigger: () => Promise<unknown>, lastEventId?: string): Promise<StreamedEvent[]> {
  const controller = new AbortController()
  const headers: Record<string, string> = { authorization: `Bearer ${key}` }
  if (lastEventId) headers['last-event-id'] = lastEventId
  const response = await fetch(`${server().baseUrl}/_sim/events/stream`, { headers, signal: controller.signal })
  expect(response.headers.get('content-type')).toContain('text/event-stream')
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const events: StreamedEvent[] = []
  let buffer = ''
  let triggered = false
  while (events.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    if (!triggered) {
      triggered = true
      await trigger()
    }
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => !line.startsWith(':') && line.includes(': '))
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
      )
      if (fields.data) events.push({ id: fields.id ?? '', type: fields.event ?? '', data: JSON.parse(fields.data) })
    }
  }
  controller.abort()
  return events
}

const server = useTestServer()
describe('GET /_sim/events/stream', () => {
  it('streams the merchant’s events of the key’s mode, and resumes after Last-Event-ID', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const other = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const live = client(server().baseUrl, (await unlockLive(server().baseUrl, keys.secret)).secret)
    const pay = async (who: typeof api, key: string) => {
      const session = (await who.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': key } })).body
      await who.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
    }
    const events = await readEvents(keys.secret, 3, async () => {
      await pay(other, 'o1')
      await pay(live, 'l1')
      await pay(api, 't1')
    })
    expect(events.map((e) => e.type)).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
    expect(events.every((e) => e.data.mode === 'test' && e.id === e.data.event_id)).toBe(true)

    await pay(api, 't2')
    const missed = await readEvents(keys.secret, 3, async () => {}, events[2]!.id)
    expect(missed.map((e) => e.type)).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
    expect(missed[0]!.id).not.toBe(events[0]!.id)
  })

  it('sends an event recorded just before the stream opened once, though it comes both from the log and live', async () => {
    const { merchant, keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const { ctx } = server()
    const createSession = async () =>
      (await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': randomUUID() } })).body as { id: string }
    const cancel = async (id: string) => expect((await api.post(`/v1/checkout-sessions/${id}/cancel`)).status).toBe(200)
    const [first, second, third] = [await createSession(), await createSession(), await createSession()]
    await cancel(first.id)
    const [before] = (await api.get('/_sim/events?limit=1')).body.data

    // Writes held: the second cancellation's event is in the log, but not yet on disk, so not yet live.
    const commit = ctx.store.commit.bind(ctx.store)
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    onTestFinished(() => release())
    ctx.store.commit = () => held.then(commit)
    const logged = () => ctx.store.group('events', 'byMerchantMode', merchantModeGroup(merchant.id, 'test')).length
    const count = logged()
    const cancelled = cancel(second.id)
    try {
      await vi.waitUntil(() => logged() > count)
    } finally {
      ctx.store.commit = commit
    }
    const events = await readEvents(
      keys.secret,
      2,
      async () => {
        release()
        await cancelled
        await cancel(third.id)
      },
      before.event_id,
    )
    expect(events.map((event) => [event.type, event.data.data.object.id])).toEqual([
      ['checkout_session.cancelled', second.id],
      ['checkout_session.cancelled', third.id],
    ])
  })

  it('replays nothing after another merchant\'s event id, nor after an event of the other mode', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const api = client(server().baseUrl, keys.secret)
    const other = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
    const live = client(server().baseUrl, (await unlockLive(server().baseUrl, keys.secret)).secret)
    const cancelOne = async (who: typeof api) => {
      const session = (await who.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, { headers: { 'idempotency-key': randomUUID() } })).body
      expect((await who.post(`/v1/checkout-sessions/${session.id}/cancel`)).status).toBe(200)
      return session.id as string
    }
    await cancelOne(other)
    await cancelOne(other)
    await cancelOne(live)
    await cancelOne(live)
    const [otherFirst] = (await other.get('/_sim/events?limit=2')).body.data.slice(-1)
    const [liveFirst] = (await live.get('/_sim/events?limit=2')).body.data.slice(-1)
    for (const foreign of [otherFirst.event_id, liveFirst.event_id]) {
      const own = await readEvents(keys.secret, 1, () => cancelOne(api), foreign)
      expect(own).toHaveLength(1)
      expect(own[0]!.data.mode).toBe('test')
      expect(own[0]!.id).not.toBe(foreign)
      expect((await api.get(`/_sim/events/${own[0]!.id}`)).status).toBe(200)
    }
  })

  it('needs a secret key', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const response = await fetch(`${server().baseUrl}/_sim/events/stream`, { headers: { authorization: `Bearer ${keys.publishable}` } })
    expect(response.status).toBe(403)
  })
})
