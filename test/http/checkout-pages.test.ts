import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { HOUR, client, signupMerchant, startTestServer, unlockLive } from '../helpers/http.js'

let server: RunningServer
let base: string
let api: ReturnType<typeof client>
let secret: string
let counter = 0

beforeAll(async () => {
  server = await startTestServer()
  base = server.baseUrl
  const { keys } = await signupMerchant(base, 'business')
  secret = keys.secret
  api = client(base, secret)
  await api.patch('/_sim/settings', { displayName: 'Kava <b>Kitchen</b> & "Co"' })
})
afterAll(() => server.close())

const create = async (body: Record<string, unknown> = {}, who = api) =>
  (
    await who.post(
      '/v1/checkout-sessions',
      { amount: 1500, currency: 'FJD', successUrl: 'https://shop.example/thanks?order=7', cancelUrl: 'https://shop.example/basket', ...body },
      { headers: { 'idempotency-key': `page-${++counter}` } },
    )
  ).body as { id: string; hostedUrl: string; amount: number }

async function page(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init })
  return { status: response.status, headers: response.headers, html: await response.text() }
}

const submit = (url: string, form: Record<string, string>) =>
  page(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() })

describe('GET /pay/{id}', () => {
  it('shows the amount as a person reads it, the display name escaped, the Providers, TEST MODE, Pay and Cancel', async () => {
    const session = await create()
    expect(session.hostedUrl).toBe(`${base}/pay/${session.id}`)
    const { status, headers, html } = await page(session.hostedUrl)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toMatch(/^text\/html/)
    expect(html).toContain('FJ$15.00')
    expect(html).toContain('Kava &lt;b&gt;Kitchen&lt;/b&gt; &amp; &quot;Co&quot;')
    expect(html).not.toContain('<b>Kitchen</b>')
    for (const text of ['Card', 'M-PAiSA', 'MyCash', 'TEST MODE', 'Pay FJ$15.00', 'Cancel payment']) expect(html).toContain(text)
    expect(html).toContain('name="viewport"')
  })

  it('never shows metadata, the quote or the customer e-mail', async () => {
    const session = await create({
      amount: undefined,
      currency: undefined,
      quote: { amount: 1000, currency: 'USD' },
      metadata: { internal_ref: 'ORDER-SECRET-991' },
      customerEmail: 'buyer@example.test',
    })
    const { html } = await page(session.hostedUrl)
    expect(html).toContain('FJ$22.50')
    for (const hidden of ['ORDER-SECRET-991', 'internal_ref', 'USD', '2.2500', 'buyer@example.test']) expect(html).not.toContain(hidden)
  })

  it('sends security headers', async () => {
    const { headers } = await page((await create()).hostedUrl)
    expect(headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(headers.get('x-frame-options')).toBe('DENY')
    expect(headers.get('referrer-policy')).toBe('no-referrer')
    expect(headers.get('cache-control')).toBe('no-store')
  })

  it('answers an unknown session with an HTML 404 page, never another merchant’s data', async () => {
    const { status, headers, html } = await page(`${base}/pay/cs_doesnotexist`)
    expect(status).toBe(404)
    expect(headers.get('content-type')).toMatch(/^text\/html/)
    expect(html).toContain('Checkout not found')
    expect(html).not.toContain('Kava')
  })

  it('has no TEST MODE marker or outcome control in live mode', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const live = client(base, (await unlockLive(base, keys.secret)).secret)
    const session = await create({ successUrl: 'https://shop.example/ok', cancelUrl: undefined }, live)
    const { html } = await page(session.hostedUrl)
    expect(html).not.toContain('TEST MODE')
    expect(html).not.toContain('name="outcome"')
    const paid = await submit(session.hostedUrl, { provider: 'card', outcome: 'failed' })
    // Live mode simulates no declines: the outcome field is ignored.
    expect(paid.headers.get('location')).toContain('https://shop.example/ok')
  })
})

describe('POST /pay/{id}', () => {
  it('redirects a success to successUrl with session_id appended, keeping its query', async () => {
    const session = await create()
    const response = await submit(session.hostedUrl, { provider: 'mycash', outcome: 'succeeded' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe(`https://shop.example/thanks?order=7&session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('succeeded')
    expect((await page(session.hostedUrl)).html).toContain('Payment complete')
  })

  it('redirects a decline to cancelUrl with session_id', async () => {
    const session = await create()
    const response = await submit(session.hostedUrl, { provider: 'card', outcome: 'failed' })
    expect(response.headers.get('location')).toBe(`https://shop.example/basket?session_id=${session.id}`)
    expect((await page(session.hostedUrl)).html).toContain('Payment declined')
  })

  it('shows a processing page that a test customer can finish', async () => {
    const session = await create()
    const held = await submit(session.hostedUrl, { provider: 'mpaisa', outcome: 'processing' })
    expect(held.headers.get('location')).toBe(`/pay/${session.id}`)
    const { html } = await page(session.hostedUrl)
    expect(html).toContain('Payment processing')
    expect(html).toContain('M-PAiSA')
    const finished = await submit(session.hostedUrl, { provider: 'mpaisa', outcome: 'succeeded' })
    expect(finished.headers.get('location')).toContain('session_id=')
  })

  it('stays on the simulator without redirect URLs', async () => {
    const session = await create({ successUrl: undefined, cancelUrl: undefined })
    const response = await submit(session.hostedUrl, { provider: 'card', outcome: 'succeeded' })
    expect(response.headers.get('location')).toBe(`/pay/${session.id}`)
  })

  it('refuses a form without a Provider, and a second payment, with an HTML page', async () => {
    const session = await create()
    const missing = await submit(session.hostedUrl, { outcome: 'succeeded' })
    expect(missing.status).toBe(400)
    expect(missing.html).toContain('Choose how to pay')
    await submit(session.hostedUrl, { provider: 'card', outcome: 'succeeded' })
    const again = await submit(session.hostedUrl, { provider: 'card', outcome: 'succeeded' })
    expect(again.status).toBe(409)
    expect(again.html).toContain('cannot take a payment')
    expect(again.html).not.toMatch(/at .*\.(js|ts):\d+/)
  })
})

describe('state pages and the cancel link', () => {
  it('leads Cancel to cancelUrl without cancelling the session', async () => {
    const session = await create()
    const response = await page(`${session.hostedUrl}/cancel`)
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe(`https://shop.example/basket?session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
  })

  it('shows a cancelled and an expired session as no longer payable', async () => {
    const cancelled = await create()
    await api.post(`/v1/checkout-sessions/${cancelled.id}/cancel`)
    expect((await page(cancelled.hostedUrl)).html).toContain('Checkout no longer available')
    const now = (await api.get('/_sim/clock')).body.now
    const expiring = await create({ expiresAt: now + HOUR })
    await api.post('/_sim/clock/advance', { ms: HOUR + 1000 })
    const { html } = await page(expiring.hostedUrl)
    expect(html).toContain('Checkout expired')
    expect(html).not.toContain('Pay FJ$15.00')
    expect((await submit(expiring.hostedUrl, { provider: 'card', outcome: 'succeeded' })).status).toBe(409)
  })
})
