import { describe, expect, it } from 'vitest'
import { checkoutSessionSchema, eventSchema } from '../../src/schemas/index.js'
import { checkWebhookReceiver, sendReadingStatusOnly, type WebhookRequestInit, type WebhookSender } from '../../src/webhooks/check.js'
import { startReceiverOnBlockedPort } from '../helpers/receiver.js'
import { verifyWebhook, WebhookVerificationError, type VerifyOptions } from '../../src/webhooks/signature.js'

const SECRET = 'whsec_unit_test_secret'
const URL_UNDER_TEST = 'http://receiver.test/webhooks'

interface Sent {
  url: string
  init: WebhookRequestInit
}

/** A sender that answers each request with answer(request) and records what it was sent. */
function fakeSender(answer: (request: Sent, index: number) => number | Promise<number>): { send: WebhookSender; sent: Sent[] } {
  const sent: Sent[] = []
  const send: WebhookSender = async (url, init) => {
    const request = { url, init }
    sent.push(request)
    const status = await answer(request, sent.length - 1)
    return { status, body: null }
  }
  return { send, sent }
}

/** The status a receiver built with verifyWebhook answers: 400 when verification fails, else 200. */
function verifiedStatus(request: Sent, options: VerifyOptions = {}): { status: number; event?: { event_id: string } } {
  try {
    return { status: 200, event: verifyWebhook<{ event_id: string }>(request.init.body, request.init.headers, SECRET, options) }
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { status: 400 }
    throw error
  }
}

/** A receiver as the spec wants it: verifies, acknowledges repeats, ignores unknown fields. */
const correctReceiver = (request: Sent): number => verifiedStatus(request).status

const check = (send: WebhookSender, options: { timeoutMs?: number; now?: () => number } = {}) =>
  checkWebhookReceiver({ url: URL_UNDER_TEST, secret: SECRET, timeoutMs: options.timeoutMs ?? 1000, send, now: options.now })

const failedCases = (result: Awaited<ReturnType<typeof check>>) => result.cases.filter((c) => !c.passed).map((c) => c.name)

describe('checkWebhookReceiver', () => {
  it('passes a correct receiver on all six cases, in order, with typed results', async () => {
    const { send, sent } = fakeSender(correctReceiver)
    const result = await check(send)

    expect(result.passed).toBe(true)
    expect(result.url).toBe(URL_UNDER_TEST)
    expect(result.cases.map((c) => [c.name, c.expected, c.status])).toEqual([
      ['signed', '2xx', 200],
      ['bad_signature', '4xx', 400],
      ['stale_timestamp', '4xx', 400],
      ['replay', '2xx', 200],
      ['unknown_fields', '2xx', 200],
      ['rotation', '2xx', 200],
    ])
    for (const c of result.cases) {
      expect(c).toMatchObject({ passed: true, hint: null, error: null })
      expect(c.latencyMs).toBeGreaterThanOrEqual(0)
    }
    expect(sent).toHaveLength(6)
    for (const request of sent) {
      expect(request.url).toBe(URL_UNDER_TEST)
      expect(request.init).toMatchObject({ method: 'POST', redirect: 'manual' })
      expect(request.init.headers['content-type']).toBe('application/json')
    }
  })

  it('sends realistic checkout_session.succeeded events with evt_ ids in the header and the body', async () => {
    const { send, sent } = fakeSender(() => 200)
    const result = await check(send)
    const ids = new Set<string>()
    sent.forEach((request, index) => {
      const event = eventSchema.parse(JSON.parse(request.init.body))
      expect(event).toMatchObject({ type: 'checkout_session.succeeded', mode: 'test' })
      expect(event.event_id).toMatch(/^evt_[0-9a-f]{20}$/)
      expect(request.init.headers['x-service-event-id']).toBe(event.event_id)
      expect(result.cases[index]?.eventId).toBe(event.event_id)
      const session = checkoutSessionSchema.parse(event.data.object)
      expect(session).toMatchObject({ status: 'succeeded', mode: 'test', currency: 'FJD' })
      expect(session.id).toMatch(/^cs_/)
      ids.add(event.event_id)
    })
    // Only the replay repeats an id.
    expect(ids.size).toBe(5)
  })

  it('builds each case as the spec describes it', async () => {
    const nowMs = 1_767_225_600_000
    const nowSeconds = nowMs / 1000
    const { send, sent } = fakeSender(() => 200)
    await check(send, { now: () => nowMs })
    const [signed, badSignature, stale, replay, unknownFields, rotation] = sent.map((request) => request.init)
    if (!signed || !badSignature || !stale || !replay || !unknownFields || !rotation) throw new Error('expected six requests')

    // As during a rotation overlap: two signatures, the receiver's second.
    const [newer, yours] = rotation.headers['service-signature']!.split(',')
    expect(newer).toMatch(/^v1=[0-9a-f]{64}$/)
    expect(() => verifyWebhook(rotation.body, { ...rotation.headers, 'service-signature': newer! }, SECRET, { nowSeconds })).toThrow()
    expect(() => verifyWebhook(rotation.body, { ...rotation.headers, 'service-signature': yours! }, SECRET, { nowSeconds })).not.toThrow()

    expect(signed.headers['service-timestamp']).toBe(String(nowSeconds))
    expect(() => verifyWebhook(signed.body, signed.headers, SECRET, { nowSeconds })).not.toThrow()

    // Well formed, but made with another secret.
    expect(badSignature.headers['service-signature']).toMatch(/^v1=[0-9a-f]{64}$/)
    expect(() => verifyWebhook(badSignature.body, badSignature.headers, SECRET, { nowSeconds })).toThrow(
      expect.objectContaining({ code: 'invalid_signature' }),
    )

    // Ten minutes old, and correctly signed for that time, so only the age is wrong.
    expect(stale.headers['service-timestamp']).toBe(String(nowSeconds - 600))
    expect(() => verifyWebhook(stale.body, stale.headers, SECRET, { nowSeconds })).toThrow(
      expect.objectContaining({ code: 'timestamp_out_of_tolerance' }),
    )
    expect(() => verifyWebhook(stale.body, stale.headers, SECRET, { nowSeconds: nowSeconds - 600 })).not.toThrow()

    // The same event id and body again, validly signed.
    expect(replay.body).toBe(signed.body)
    expect(replay.headers['x-service-event-id']).toBe(signed.headers['x-service-event-id'])
    expect(() => verifyWebhook(replay.body, replay.headers, SECRET, { nowSeconds })).not.toThrow()

    // Validly signed, with a field the schema does not know at the top and in the object.
    const withExtras = verifyWebhook<Record<string, unknown> & { data: { object: Record<string, unknown> } }>(
      unknownFields.body,
      unknownFields.headers,
      SECRET,
      { nowSeconds },
    )
    const knownTop = Object.keys(eventSchema.shape)
    const knownObject = Object.keys(checkoutSessionSchema.shape)
    expect(Object.keys(withExtras).filter((key) => !knownTop.includes(key))).not.toHaveLength(0)
    expect(Object.keys(withExtras.data.object).filter((key) => !knownObject.includes(key))).not.toHaveLength(0)
  })

  it('fails the bad signature and the stale timestamp of a receiver that accepts everything', async () => {
    const { send } = fakeSender(() => 200)
    const result = await check(send)
    expect(result.passed).toBe(false)
    expect(failedCases(result)).toEqual(['bad_signature', 'stale_timestamp'])
    const hint = (name: string) => result.cases.find((c) => c.name === name)?.hint
    expect(hint('bad_signature')).toMatch(/^your receiver accepted a bad signature: verify Service-Signature with HMAC-SHA256 of `<Service-Timestamp>\.<raw body>`/)
    expect(hint('stale_timestamp')).toMatch(/accepted a delivery signed 10m ago: refuse a Service-Timestamp older than 5m/)
  })

  it('fails only the replay of a receiver that refuses a repeated event id', async () => {
    const seen = new Set<string>()
    const { send } = fakeSender((request) => {
      const { status, event } = verifiedStatus(request)
      if (!event) return status
      if (seen.has(event.event_id)) return 409
      seen.add(event.event_id)
      return 200
    })
    const result = await check(send)
    expect(failedCases(result)).toEqual(['replay'])
    expect(result.cases[3]).toMatchObject({ status: 409, hint: expect.stringMatching(/same event_id, so answer 2xx/) })
  })

  it('fails only the stale timestamp of a receiver that ignores the timestamp', async () => {
    const { send } = fakeSender((request) => verifiedStatus(request, { toleranceSeconds: Number.POSITIVE_INFINITY }).status)
    expect(failedCases(await check(send))).toEqual(['stale_timestamp'])
  })

  it('fails only the unknown fields of a receiver with a strict schema', async () => {
    const { send } = fakeSender((request) => {
      const { status } = verifiedStatus(request)
      if (status !== 200) return status
      const event = JSON.parse(request.init.body) as { data?: { object?: unknown } }
      const strict = eventSchema.strict().safeParse(event).success && checkoutSessionSchema.strict().safeParse(event.data?.object).success
      return strict ? 200 : 422
    })
    const result = await check(send)
    expect(failedCases(result)).toEqual(['unknown_fields'])
    expect(result.cases[4]?.hint).toMatch(/unknown fields: payloads are additive/)
  })

  it('asks for a 4xx, not a 5xx, when a receiver crashes on a bad delivery', async () => {
    const { send } = fakeSender((request) => (verifiedStatus(request).status === 200 ? 200 : 500))
    const result = await check(send)
    expect(failedCases(result)).toEqual(['bad_signature', 'stale_timestamp'])
    expect(result.cases[1]?.hint).toMatch(/with a 4xx: a 5xx says your receiver failed/)
  })

  it('points at the signed case when every valid delivery is refused (a wrong secret)', async () => {
    const { send } = fakeSender(() => 400)
    const result = await check(send)
    expect(failedCases(result)).toEqual(['signed', 'replay', 'unknown_fields', 'rotation'])
    expect(result.cases[0]?.hint).toMatch(/refused a correctly signed event: .*raw body before any JSON parsing/)
    expect(result.cases[3]?.hint).toBe('refused like the correctly signed event (400): make `signed` pass first')
    expect(result.cases[4]?.hint).toBe('refused like the correctly signed event (400): make `signed` pass first')
  })

  it('fails every case when a redirect answers, since deliveries do not follow redirects', async () => {
    const { send } = fakeSender(() => 308)
    const result = await check(send)
    expect(failedCases(result)).toHaveLength(6)
    expect(result.cases.every((c) => c.hint?.startsWith('deliveries do not follow redirects'))).toBe(true)
  })

  it('reports a refused connection as the error, with no status', async () => {
    const send: WebhookSender = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) })
    }
    const result = await check(send)
    expect(result.passed).toBe(false)
    for (const c of result.cases) {
      expect(c).toMatchObject({ status: null, error: 'ECONNREFUSED', passed: false })
      expect(c.hint).toBe('could not reach the receiver (ECONNREFUSED): is it running at this URL?')
    }
  })

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const send: WebhookSender = (_url, init) =>
      new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)))
    const result = await check(send, { timeoutMs: 30 })
    expect(result.cases[0]).toMatchObject({ status: null, error: 'no answer within 30ms', passed: false })
    expect(result.cases[0]?.hint).toMatch(/^answer within 30ms: acknowledge with a 2xx first/)
    expect(result.cases[0]?.latencyMs).toBeGreaterThanOrEqual(25)
  })
})

describe('the sender of bula webhooks check', () => {
  it('reaches a receiver on a port fetch refuses, as deliveries do', async () => {
    const blocked = await startReceiverOnBlockedPort()
    try {
      const result = await checkWebhookReceiver({ url: blocked.url, secret: SECRET, timeoutMs: 5_000, send: sendReadingStatusOnly })
      // This receiver acknowledges everything: each case got its answer, none a network error.
      expect(result.cases.map((c) => [c.status, c.error])).toEqual(result.cases.map(() => [200, null]))
      expect(blocked.requests).toHaveLength(result.cases.length)
    } finally {
      await blocked.close()
    }
  })
})
