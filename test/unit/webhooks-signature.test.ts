import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { verifyWebhook } from '../../src/webhooks/signature.js'

const secret = 'whsec_test'
const body = JSON.stringify({ event_id: 'evt_1', type: 'checkout_session.succeeded', mode: 'test', createdAt: 0, data: { object: {} } })
const now = 1_800_000_000
/** The spec's HMAC of `<timestamp>.<body>`, computed here without the code under test. */
const hmac = (timestamp: string) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
const verify = (timestamp: string, signature: string) =>
  verifyWebhook(body, { 'service-timestamp': timestamp, 'service-signature': signature }, secret, { nowSeconds: now })

describe('verifyWebhook', () => {
  it('accepts the genuine signature, in either letter case', () => {
    expect(verify(String(now), `v1=${hmac(String(now))}`)).toMatchObject({ event_id: 'evt_1' })
    expect(verify(String(now), `v1=${hmac(String(now)).toUpperCase()}`)).toMatchObject({ event_id: 'evt_1' })
  })

  it.each([
    ['letters after it', (hex: string) => `v1=${hex}zz`],
    ['hex digits after it', (hex: string) => `v1=${hex}00`],
    ['a space inside it', (hex: string) => `v1=${hex.slice(0, 10)} ${hex.slice(10)}`],
  ])('refuses a genuine signature with %s: only a whole v1= value matches', (_name, tamper) => {
    expect(() => verify(String(now), tamper(hmac(String(now))))).toThrow(expect.objectContaining({ code: 'invalid_signature' }))
  })

  it('signs the Service-Timestamp header as it came, not the number it reads as', () => {
    const padded = `0${now}`
    expect(verify(padded, `v1=${hmac(padded)}`)).toMatchObject({ event_id: 'evt_1' })
    expect(() => verify(padded, `v1=${hmac(String(now))}`)).toThrow(expect.objectContaining({ code: 'invalid_signature' }))
  })

  // Each used to be a TypeError from inside Node (ERR_INVALID_ARG_TYPE; reading 'get' of undefined), which the documented
  // Express handler turned into a 500 without saying what was wrong.
  it('says what is wrong with a parsed body, missing headers or a secret that is not set', () => {
    const headers = { 'service-timestamp': String(now), 'service-signature': `v1=${hmac(String(now))}` }
    expect(() => verifyWebhook(JSON.parse(body) as string, headers, secret, { nowSeconds: now })).toThrow(
      expect.objectContaining({ name: 'WebhookVerificationError', code: 'invalid_signature', message: expect.stringContaining('pass those (express.raw, not express.json)') }),
    )
    expect(() => verifyWebhook(body, undefined as unknown as Record<string, string>, secret, { nowSeconds: now })).toThrow(
      expect.objectContaining({ name: 'WebhookVerificationError', code: 'missing_header' }),
    )
    for (const missing of [undefined, '']) {
      expect(() => verifyWebhook(body, headers, missing as string, { nowSeconds: now })).toThrow(/^verifyWebhook needs the endpoint's whsec_ signing secret, and got (undefined|an empty string)/)
    }
    expect(verifyWebhook(Buffer.from(body), headers, secret, { nowSeconds: now })).toMatchObject({ event_id: 'evt_1' })
    expect(verifyWebhook(new Uint8Array(Buffer.from(body)) as Buffer, headers, secret, { nowSeconds: now })).toMatchObject({ event_id: 'evt_1' })
  })

  // Found by an adversarial pass: `toleranceSeconds: Number(process.env.WEBHOOK_TOLERANCE)` with the variable unset
  // is NaN, and a comparison with NaN is false, so a delivery of any age was accepted.
  it('refuses a tolerance or a now that is not a number of seconds, instead of accepting every age', () => {
    const old = String(now - 100_000)
    const headers = { 'service-timestamp': old, 'service-signature': `v1=${hmac(old)}` }
    for (const options of [{ toleranceSeconds: Number.NaN }, { toleranceSeconds: '5000' as unknown as number }, { toleranceSeconds: -1 }, { nowSeconds: Number.NaN }]) {
      expect(() => verifyWebhook(body, headers, secret, { nowSeconds: now, ...options }), JSON.stringify(options)).toThrow(TypeError)
    }
    expect(() => verifyWebhook(body, headers, secret, { nowSeconds: now, toleranceSeconds: Number.NaN })).toThrow(
      "verifyWebhook's options.toleranceSeconds must be a number of seconds, 0 or more, not NaN.",
    )
    expect(() => verifyWebhook(body, headers, secret, { nowSeconds: now })).toThrow(expect.objectContaining({ code: 'timestamp_out_of_tolerance' }))
    expect(verifyWebhook(body, headers, secret, { nowSeconds: now, toleranceSeconds: 100_000 })).toMatchObject({ event_id: 'evt_1' })
  })
})
