import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { launchChromium, saveScreenshot, skipBrowserTests, startRedirectTarget, type RedirectTarget } from '../helpers/browser.js'
import { client, signupMerchant, startTestServer } from '../helpers/http.js'

describe.skipIf(skipBrowserTests)('the hosted checkout page in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let shop: RedirectTarget
  let api: ReturnType<typeof client>
  let counter = 0
  let publishableKey: string

  beforeAll(async () => {
    server = await startTestServer()
    browser = await launchChromium()
    shop = await startRedirectTarget()
    const { keys } = await signupMerchant(server.baseUrl, 'business')
    publishableKey = keys.publishable
    api = client(server.baseUrl, keys.secret)
    await api.patch('/_sim/settings', { displayName: 'Kava Kitchen Ltd' })
  })
  afterAll(async () => {
    await browser?.close()
    await shop?.close()
    await server?.close()
  })

  async function session(): Promise<{ id: string; hostedUrl: string }> {
    const created = await api.post(
      '/v1/checkout-sessions',
      {
        amount: 1500,
        currency: 'FJD',
        successUrl: `${shop.baseUrl}/thanks?order=7`,
        cancelUrl: `${shop.baseUrl}/basket`,
        metadata: { secret_note: 'never-shown-to-customer' },
      },
      { headers: { 'idempotency-key': `browser-${++counter}` } },
    )
    expect(created.status).toBe(201)
    return created.body
  }

  async function open(url: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const page = await browser.newPage({ viewport })
    await page.goto(url)
    return page
  }

  const statusOf = async (id: string) => (await api.get(`/v1/checkout-sessions/${id}`)).body.status

  it.each([
    ['card', 'Card'],
    ['mpaisa', 'M-PAiSA'],
    ['mycash', 'MyCash'],
  ])('pays with %s and lands on successUrl with session_id', async (provider, label) => {
    const { id, hostedUrl } = await session()
    const page = await open(hostedUrl)
    const body = await page.textContent('body')
    expect(body).toContain('Kava Kitchen Ltd')
    expect(body).toContain('FJ$15.00')
    expect(body).toContain('TEST MODE')
    expect(body).not.toContain('never-shown-to-customer')
    await page.getByLabel(label).check()
    await saveScreenshot(page, `checkout-pay-${provider}`)
    await page.getByRole('button', { name: 'Pay FJ$15.00' }).click()
    await page.waitForURL(`${shop.baseUrl}/thanks**`)
    const landed = new URL(page.url())
    expect(landed.searchParams.get('order')).toBe('7')
    expect(landed.searchParams.get('session_id')).toBe(id)
    expect(await statusOf(id)).toBe('succeeded')
    const intent = (await api.get(`/_sim/events?type=payment.succeeded`)).body.data.find(
      (event: { data: { object: { checkoutSessionId: string } } }) => event.data.object.checkoutSessionId === id,
    )
    expect(intent.data.object.provider).toBe(provider)
    await page.goto(hostedUrl)
    expect(await page.textContent('body')).toContain('Payment complete')
    await saveScreenshot(page, `checkout-paid-${provider}`)
    await page.close()
  })

  it('takes the decline path to cancelUrl, and the session is failed', async () => {
    const { id, hostedUrl } = await session()
    const page = await open(hostedUrl)
    await page.getByLabel('Card').check()
    await page.getByLabel('Decline').check()
    await page.getByRole('button', { name: /^Pay/ }).click()
    await page.waitForURL(`${shop.baseUrl}/basket**`)
    expect(new URL(page.url()).searchParams.get('session_id')).toBe(id)
    expect(await statusOf(id)).toBe('failed')
    await page.goto(hostedUrl)
    expect(await page.textContent('body')).toContain('Payment declined')
    await saveScreenshot(page, 'checkout-declined')
    await page.close()
  })

  it('follows the cancel link to cancelUrl and leaves the session pending (only the merchant or expiry cancels)', async () => {
    const { id, hostedUrl } = await session()
    const page = await open(hostedUrl)
    await page.getByRole('link', { name: 'Cancel payment' }).click()
    await page.waitForURL(`${shop.baseUrl}/basket**`)
    expect(new URL(page.url()).searchParams.get('session_id')).toBe(id)
    expect(await statusOf(id)).toBe('pending')
    await page.close()
  })

  it('pays with the keyboard alone on a phone-sized screen', async () => {
    const { id, hostedUrl } = await session()
    const page = await open(hostedUrl, { width: 390, height: 844 })
    // Nothing wider than the screen: no sideways scrolling.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    await page.keyboard.press('Tab')
    await page.keyboard.press('Space')
    expect(await page.getByLabel('Card').isChecked()).toBe(true)
    // Tab moves from the provider group to the outcome group, then to Pay.
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    await saveScreenshot(page, 'checkout-phone-keyboard')
    expect(await page.evaluate<string>('document.activeElement.textContent')).toContain('Pay FJ$15.00')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${shop.baseUrl}/thanks**`)
    expect(await statusOf(id)).toBe('succeeded')
    await page.close()
  })

  it('takes a session created by a script on the shop\'s page with the publishable key, and the page can read the answer', async () => {
    const page = await open(`${shop.baseUrl}/basket`)
    const created = await page.evaluate(
      async ({ simulator, key }) => {
        const answer = await fetch(`${simulator}/v1/checkout-sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({ amount: 2500, currency: 'FJD' }),
        })
        return { status: answer.status, requestId: answer.headers.get('x-request-id'), body: (await answer.json()) as { hostedUrl: string } }
      },
      { simulator: server.baseUrl, key: publishableKey },
    )
    expect(created).toMatchObject({ status: 201, requestId: expect.stringMatching(/^req_/), body: { status: 'pending', amount: 2500 } })
    // A secret key's routes keep the same-origin wall: the browser refuses the page the answer.
    const listing = await page.evaluate(async ({ simulator, key }) => {
      try {
        await fetch(`${simulator}/v1/checkout-sessions`, { headers: { authorization: `Bearer ${key}` } })
        return 'read'
      } catch (error) {
        return (error as Error).name
      }
    }, { simulator: server.baseUrl, key: publishableKey })
    expect(listing).toBe('TypeError')
    await page.goto(created.body.hostedUrl)
    expect(await page.textContent('body')).toContain('FJ$25.00')
    await page.close()
  })
})
