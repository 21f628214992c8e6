import { beforeAll, describe, expect, it } from 'vitest'
import { DAY, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

/** Redirect targets are never fetched here (redirect: 'manual'), so any loopback port will do. */
const SHOP = 'http://127.0.0.1:9'

let keyCounter = 0

async function merchant(options: { displayName?: string } = {}) {
  const { keys } = await signupMerchant(base)
  const api = client(base, keys.secret)
  await api.patch('/_sim/settings', { displayName: options.displayName ?? 'Kava Kitchen Ltd' })
  const createSession = async (body: Record<string, unknown> = {}, key = keys.secret) => {
    const response = await client(base, key).post(
      '/v1/checkout-sessions',
      { amount: 1500, currency: 'FJD', successUrl: `${SHOP}/done?order=7`, cancelUrl: `${SHOP}/back`, ...body },
      { headers: { 'idempotency-key': `pages-${++keyCounter}` } },
    )
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    return response.body as { id: string; hostedUrl: string; status: string }
  }
  return { keys, api, createSession }
}

async function page(path: string) {
  const response = await fetch(`${base}${path}`, { redirect: 'manual' })
  return { status: response.status, headers: response.headers, html: await response.text() }
}

async function submit(sessionId: string, form: Record<string, string>) {
  const response = await fetch(`${base}/pay/${sessionId}`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' })
  return { status: response.status, location: response.headers.get('location'), headers: response.headers, html: await response.text() }
}

describe('the pending page', () => {
  it('shows the merchant, the FJD amount, the Providers and the test controls', async () => {
    const { createSession } = await merchant()
    const session = await createSession({ amount: 123456 })
    expect(session.hostedUrl).toBe(`${base}/pay/${session.id}`)
    const { status, headers, html } = await page(`/pay/${session.id}`)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toMatch(/^text\/html/)
    expect(html).toContain('Kava Kitchen Ltd')
    expect(html).toContain('FJ$1,234.56')
    expect(html).toContain('TEST MODE')
    expect(html).toContain('<meta name="viewport"')
    for (const [value, label] of [
      ['card', 'Card'],
      ['mpaisa', 'M-PAiSA'],
      ['mycash', 'MyCash'],
    ]) {
      expect(html).toContain(`name="provider" value="${value}"`)
      expect(html).toContain(`>${label}<`)
    }
    for (const outcome of ['Succeed', 'Decline', 'Leave processing']) expect(html).toContain(outcome)
    expect(html).toContain(`action="/pay/${session.id}"`)
    expect(html).toContain(`href="/pay/${session.id}/cancel"`)
    expect(html).not.toContain('<script')
  })

  it('sends strict security headers', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    const { headers } = await page(`/pay/${session.id}`)
    const csp = headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("style-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    // The POST redirects to the merchant's URLs; browsers check them against form-action.
    expect(csp).toContain(`form-action 'self' ${SHOP}`)
    expect(headers.get('x-frame-options')).toBe('DENY')
    expect(headers.get('referrer-policy')).toBe('no-referrer')
    expect(headers.get('cache-control')).toBe('no-store')
    expect(headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('never shows metadata, the quote or the customer e-mail', async () => {
    const { createSession } = await merchant()
    const session = await createSession({
      amount: undefined,
      currency: undefined,
      quote: { amount: 1000, currency: 'USD' },
      metadata: { internalOrderRef: 'meta-value-7431' },
      customerEmail: 'customer-9215@example.test',
    })
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('FJ$22.50') // USD 10.00 at the default 2.2500
    for (const hidden of ['internalOrderRef', 'meta-value-7431', 'customer-9215', 'USD', '2.25', '10.00']) {
      expect(html).not.toContain(hidden)
    }
  })

  it('escapes the display name', async () => {
    const { createSession } = await merchant({ displayName: '<script>alert(1)</script> & "Co"' })
    const session = await createSession()
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;')
    expect(html).not.toContain('<script')
  })

  it('keeps bidi controls in the display name from reordering the page: isolated in <bdi>, dropped from the <title>', async () => {
    // An override (U+202E) would show the tab's "· FJ$15.00" reversed; the API still keeps what it was sent.
    const displayName = '\u202eKava\u2066 Kitchen\u200f'
    const { api, createSession } = await merchant({ displayName })
    expect((await api.get('/_sim/settings')).body.displayName).toBe(displayName)
    const session = await createSession({ successUrl: undefined, cancelUrl: undefined })
    const pay = await page(`/pay/${session.id}`)
    expect(pay.html).toContain('<title>Pay Kava Kitchen · FJ$15.00</title>')
    expect(pay.html).toContain('<span class="merchant-initial" aria-hidden="true">K</span>')
    // Every place the name is shown, it is isolated, so it reorders only itself.
    const isolatedEverywhere = (html: string) => html.split(displayName).length - 1 === html.split(`<bdi>${displayName}</bdi>`).length - 1
    expect(isolatedEverywhere(pay.html)).toBe(true)
    await submit(session.id, { provider: 'card', outcome: 'failed' })
    const declined = await page(`/pay/${session.id}`)
    expect(declined.html).toContain('<title>Payment declined · Kava Kitchen</title>')
    expect(declined.html).toContain(`Your payment to <bdi>${displayName}</bdi> did not go through and no money was taken.`)
    expect(isolatedEverywhere(declined.html)).toBe(true)
  })

  it('keeps a return URL\'s host from adding to the page\'s Content-Security-Policy', async () => {
    const { createSession } = await merchant()
    // Each parses as a URL, but its host is CSP syntax: a directive, a wildcard, a keyword.
    for (const url of ['https://shop.example;sandbox/ok', 'https://*/ok', "https://shop'unsafe-inline'/ok"]) {
      const session = await createSession({ successUrl: url, cancelUrl: url })
      const { headers } = await page(`/pay/${session.id}`)
      const directives = headers.get('content-security-policy')!.split('; ')
      expect(directives.map((directive) => directive.split(' ')[0])).toEqual(['default-src', 'style-src', 'img-src', 'form-action', 'base-uri', 'frame-ancestors'])
      expect(directives).toContain("form-action 'self' https:")
    }
  })

  it('in live mode shows no test marker and no outcome control, and the payment succeeds', async () => {
    const { keys, createSession } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const session = await createSession({ successUrl: 'https://shop.example/done', cancelUrl: 'https://shop.example/back' }, live.secret)
    const { html, headers } = await page(`/pay/${session.id}`)
    expect(html).toContain('FJ$15.00')
    expect(html).toContain('name="provider"')
    expect(html).not.toContain('TEST MODE')
    expect(html).not.toContain('name="outcome"')
    expect(headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example")
    // A hand-made decline is ignored: live mode simulates no declines.
    const paid = await submit(session.id, { provider: 'mycash', outcome: 'failed' })
    expect(paid.status).toBe(303)
    expect(paid.location).toBe(`https://shop.example/done?session_id=${session.id}`)
    const retrieved = await client(base, live.secret).get(`/v1/checkout-sessions/${session.id}`)
    expect(retrieved.body.status).toBe('succeeded')
  })

  it('lets a long word in merchant text break rather than widen the page (the state messages had none)', async () => {
    // Seen in Chromium at 390 px: an 80-letter display name in "… will be told when it completes." scrolled the page to 868 px.
    const css = await (await fetch(`${base}/pay/assets/checkout.css`)).text()
    expect(css).toMatch(/\nbdi \{\n {2}overflow-wrap: anywhere;\n\}/)
    const { createSession } = await merchant({ displayName: 'K'.repeat(80) })
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'processing' })
    expect((await page(`/pay/${session.id}`)).html).toContain(`<bdi>${'K'.repeat(80)}</bdi> will be told when it completes.`)
  })

  it('serves its stylesheet', async () => {
    const response = await fetch(`${base}/pay/assets/checkout.css`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/css/)
    expect(await response.text()).toContain(':focus-visible')
  })
})

describe('not found', () => {
  // `%ZZ` does not percent-decode: Express fails before the route, and it still names no checkout.
  it.each(['/pay/cs_doesNotExist', '/pay/cs_x/elsewhere', '/pay/', '/pay/%ZZ', '/pay/%ZZ/cancel'])('%s is an HTML 404 page', async (path) => {
    const { status, headers, html } = await page(path)
    expect(status).toBe(404)
    expect(headers.get('content-type')).toMatch(/^text\/html/)
    expect(headers.get('x-frame-options')).toBe('DENY')
    expect(html).toContain('Checkout not found')
    expect(html).not.toContain('Kava')
  })

  it('echoes no markup from an unknown id', async () => {
    const { status, html } = await page('/pay/%3Cb%3E')
    expect(status).toBe(404)
    expect(html).not.toContain('<b>')
  })
})

describe('paying', () => {
  it('on success goes to successUrl, keeping its query and adding session_id', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    const paid = await submit(session.id, { provider: 'mpaisa', outcome: 'succeeded' })
    expect(paid.status).toBe(303)
    expect(paid.location).toBe(`${SHOP}/done?order=7&session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('succeeded')
    const events = await api.get('/_sim/events?type=payment.succeeded')
    expect(events.body.data[0].data.object).toMatchObject({ checkoutSessionId: session.id, provider: 'mpaisa' })
  })

  it('keeps the return URL\'s query byte for byte and its fragment after it', async () => {
    // A merchant may sign its return URL or read a bare flag: re-encoding the query (`flag` → `flag=`, `%20` → `+`) would break both.
    const { createSession } = await merchant()
    const session = await createSession({ successUrl: `${SHOP}/done?flag&q=a%20b&next=/cart;x&s=a~b#step-2` })
    const paid = await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    expect(paid.location).toBe(`${SHOP}/done?flag&q=a%20b&next=/cart;x&s=a~b&session_id=${session.id}#step-2`)
  })

  it('on a decline goes to cancelUrl with session_id', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    const declined = await submit(session.id, { provider: 'card', outcome: 'failed' })
    expect(declined.status).toBe(303)
    expect(declined.location).toBe(`${SHOP}/back?session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('failed')
  })

  it('without return URLs shows the state page', async () => {
    const { createSession } = await merchant()
    const paidSession = await createSession({ successUrl: undefined, cancelUrl: undefined })
    const paid = await submit(paidSession.id, { provider: 'card', outcome: 'succeeded' })
    expect(paid.location).toBe(`/pay/${paidSession.id}`)
    const paidPage = await page(paid.location!)
    expect(paidPage.html).toContain('Payment complete')
    expect(paidPage.html).not.toContain('Continue to')

    const failedSession = await createSession({ successUrl: undefined, cancelUrl: undefined })
    const failed = await submit(failedSession.id, { provider: 'card', outcome: 'failed' })
    expect(failed.location).toBe(`/pay/${failedSession.id}`)
    expect((await page(failed.location!)).html).toContain('Payment declined')
  })

  it('"Leave processing" shows the processing page, whose test controls finish the payment', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    const held = await submit(session.id, { provider: 'mycash', outcome: 'processing' })
    expect(held.status).toBe(303)
    expect(held.location).toBe(`/pay/${session.id}`)
    const processing = await page(held.location!)
    expect(processing.html).toContain('Payment processing')
    expect(processing.html).toContain('MyCash')
    expect(processing.html).toContain('name="outcome" value="succeeded"')
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
    // Started paying: the merchant can no longer cancel.
    expect((await api.post(`/v1/checkout-sessions/${session.id}/cancel`)).body.error.code).toBe('payment_in_progress')

    const finished = await submit(session.id, { provider: 'mycash', outcome: 'succeeded' })
    expect(finished.location).toBe(`${SHOP}/done?order=7&session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('succeeded')
  })

  it('a second payment is a friendly 409 page, never JSON or a stack trace', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    const again = await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    expect(again.status).toBe(409)
    expect(again.headers.get('content-type')).toMatch(/^text\/html/)
    expect(again.html).toContain('This checkout cannot take a payment')
    expect(again.html).toContain(`href="/pay/${session.id}"`)
    expect(again.html).not.toMatch(/invalid_state|at .*\.ts:\d+/)
  })

  it('a live payment while live Providers are off offers the way back to the merchant, not only back to the same refusal', async () => {
    const { keys, createSession } = await merchant()
    const live = await unlockLive(base, keys.secret)
    const session = await createSession({ successUrl: 'https://shop.example/done', cancelUrl: 'https://shop.example/back' }, live.secret)
    await client(base, live.secret).patch('/_sim/settings', { liveProviders: false })
    const refused = await submit(session.id, { provider: 'card' })
    expect(refused.status).toBe(409)
    expect(refused.html).toContain('Payments are unavailable')
    // The pay page's own Cancel: it leads to cancelUrl with session_id.
    expect(refused.html).toContain(`href="/pay/${session.id}/cancel">Cancel payment</a>`)
    const cancel = await page(`/pay/${session.id}/cancel`)
    expect(cancel.status).toBe(303)
    expect(cancel.headers.get('location')).toBe(`https://shop.example/back?session_id=${session.id}`)
  })

  it.each([{}, { provider: 'cash' }, { provider: 'card', outcome: 'maybe' }])('refuses the form %j with a 400 page', async (form) => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    const refused = await submit(session.id, form as Record<string, string>)
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('Choose how to pay')
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
  })

  it.each([
    ['over 16 KiB', { provider: 'card', padding: 'x'.repeat(40_000) }],
    ['of more than 1,000 fields', { provider: 'card', ...Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`f${i}`, '1'])) }],
  ])('refuses a form %s with a 413 page, not a 500', async (_what, form) => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    const refused = await submit(session.id, form)
    expect(refused.status).toBe(413)
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
  })

  it('an unknown session is a 404 page', async () => {
    const refused = await submit('cs_doesNotExist', { provider: 'card', outcome: 'succeeded' })
    expect(refused.status).toBe(404)
    expect(refused.html).toContain('Checkout not found')
  })
})

describe('the customer cancelling', () => {
  it('leads to cancelUrl with session_id and leaves the session pending', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession({ cancelUrl: `${SHOP}/back?cart=3` })
    const left = await page(`/pay/${session.id}/cancel`)
    expect(left.status).toBe(303)
    expect(left.headers.get('location')).toBe(`${SHOP}/back?cart=3&session_id=${session.id}`)
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('pending')
    expect((await page(`/pay/${session.id}`)).html).toContain('name="provider"')
  })

  it('without cancelUrl shows "You left the checkout" with a way back', async () => {
    const { createSession } = await merchant()
    const session = await createSession({ cancelUrl: undefined })
    const left = await page(`/pay/${session.id}/cancel`)
    expect(left.status).toBe(200)
    expect(left.html).toContain('You left the checkout')
    expect(left.html).toContain(`href="/pay/${session.id}"`)
  })

  it('on a finished session leads to its state page', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    const left = await page(`/pay/${session.id}/cancel`)
    expect(left.status).toBe(303)
    expect(left.headers.get('location')).toBe(`/pay/${session.id}`)
  })
})

describe('state pages', () => {
  it('paid: the amount, a reference and the way back to successUrl', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    const { status, html } = await page(`/pay/${session.id}`)
    expect(status).toBe(200)
    expect(html).toContain('Payment complete')
    expect(html).toContain('FJ$15.00')
    expect(html).toContain(session.id)
    expect(html).toContain(`href="${SHOP}/done?order=7&amp;session_id=${session.id}"`)
    expect(html).not.toContain('name="provider"')
  })

  it('declined: the way back to cancelUrl', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'failed' })
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('Payment declined')
    expect(html).toContain(`href="${SHOP}/back?session_id=${session.id}"`)
  })

  it('cancelled by the merchant: no longer available', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    await api.post(`/v1/checkout-sessions/${session.id}/cancel`)
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('Checkout no longer available')
    expect(html).not.toContain('name="provider"')
    const refused = await submit(session.id, { provider: 'card', outcome: 'succeeded' })
    expect(refused.status).toBe(409)
  })

  it('expired on the merchant clock: expired, and no payment can start', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    await api.post('/_sim/clock/advance', { ms: DAY + 1000 })
    expect((await api.get(`/v1/checkout-sessions/${session.id}`)).body.status).toBe('cancelled')
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('Checkout expired')
    expect((await submit(session.id, { provider: 'card', outcome: 'succeeded' })).status).toBe(409)
  })

  it('expired while still pending (before the expiry job ran): expired', async () => {
    const { createSession } = await merchant()
    const session = await createSession()
    // The expiry job runs on its own; this catches the moment between expiresAt and the job.
    const record = server().ctx.store.get('checkoutSessions', session.id)!
    server().ctx.store.put('checkoutSessions', { ...record, expiresAt: server().ctx.clock.now(record.merchantId) })
    const { html } = await page(`/pay/${session.id}`)
    expect(html).toContain('Checkout expired')
    expect((await submit(session.id, { provider: 'card', outcome: 'succeeded' })).status).toBe(409)
  })

  it('a payment still processing past expiresAt stays processing', async () => {
    const { api, createSession } = await merchant()
    const session = await createSession()
    await submit(session.id, { provider: 'card', outcome: 'processing' })
    await api.post('/_sim/clock/advance', { ms: DAY + 1000 })
    expect((await page(`/pay/${session.id}`)).html).toContain('Payment processing')
  })
})
