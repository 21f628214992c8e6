import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, saveScreenshot, skipBrowserTests } from '../helpers/browser.js'
import { removeCliConfigDir, runCli, signupMerchant, type TestMerchant } from '../helpers/cli.js'
import { DAY, HOUR, client, endpointsActive } from '../helpers/http.js'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { startServe, type ServeProcess } from '../helpers/serve-process.js'

/**
 * The dashboard as a merchant's developer uses it: Chromium signs in through
 * `bula dashboard`'s link against a real `bula serve`, then goes through the
 * flows of issue 9. Every page is saved as test-artifacts/screenshots/dashboard-*.png.
 */
describe.skipIf(skipBrowserTests)('the dashboard in a browser', () => {
  let serve: ServeProcess
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let receiver: Receiver
  let merchant: TestMerchant
  let api: ReturnType<typeof client>

  beforeAll(async () => {
    serve = await startServe({ memory: true })
    browser = await launchChromium()
    receiver = await startReceiver()
    merchant = await signupMerchant(serve.baseUrl)
    api = client(serve.baseUrl, merchant.secret)
    await api.patch('/_sim/settings', { displayName: 'Kava Kitchen Ltd' })
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await receiver?.close()
    await serve?.stop()
    removeCliConfigDir()
  })

  const shoot = (name: string) => saveScreenshot(page, `dashboard-${name}`)
  const flash = () => page.locator('.flash').first()
  /** Waits for the message a form's answer shows: a message of the page before it cannot match. */
  const flashSaying = (text: string | RegExp) => page.locator('.flash', { hasText: text }).waitFor()
  const button = (name: string) => page.getByRole('button', { name, exact: true })
  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click()

  it('signs in through bula dashboard\'s one-time link; the address bar then holds no token', async () => {
    const result = await runCli(['dashboard'], { env: merchant.env })
    expect(result.exitCode, result.stderr).toBe(0)
    const link = result.stdout.trim()
    expect(link).not.toContain(merchant.secret)

    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    page = await context.newPage()
    page.setDefaultTimeout(5000)
    page.on('dialog', (dialog) => void dialog.accept())
    await page.goto(link)
    expect(page.url()).toBe(`${serve.baseUrl}/dashboard`)
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 }).isVisible()).resolves.toBe(true)
    await expect(page.locator('.merchant-name').textContent()).resolves.toBe('Kava Kitchen Ltd')
    const [cookie] = await context.cookies()
    expect(cookie).toMatchObject({ name: 'bula_dashboard', httpOnly: true, sameSite: 'Strict', path: '/dashboard' })
    await shoot('overview')

    // The link is used up: a second browser gets the sign-in form.
    const other = await browser.newContext()
    const stranger = await other.newPage()
    await stranger.goto(link)
    await expect(stranger.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true)
    await saveScreenshot(stranger, 'dashboard-sign-in', { fullPage: false })
    await other.close()
  })

  it('signs in with a secret key typed into the form, which never reaches the address bar', async () => {
    const other = await browser.newContext()
    const visitor = await other.newPage()
    await visitor.goto(`${serve.baseUrl}/dashboard/payouts`)
    expect(visitor.url()).toBe(`${serve.baseUrl}/dashboard/sign-in`)
    await visitor.getByLabel('Secret key').fill(merchant.publishable)
    await visitor.getByRole('button', { name: 'Sign in' }).click()
    await expect(visitor.getByRole('alert').textContent()).resolves.toContain('That is a publishable key')
    await visitor.getByLabel('Secret key').fill(merchant.secret)
    await visitor.getByRole('button', { name: 'Sign in' }).click()
    await expect(visitor.getByRole('heading', { name: 'Overview', level: 1 }).isVisible()).resolves.toBe(true)
    expect(visitor.url()).toBe(`${serve.baseUrl}/dashboard`)
    await other.close()
  })

  it('advances the clock with a button and sees the session it expired', async () => {
    const created = await api.post('/v1/checkout-sessions', { amount: 2500, currency: 'FJD' }, { headers: { 'idempotency-key': 'browser-expire' } })
    expect(created.status).toBe(201)
    await nav('Checkout Sessions')
    const row = page.getByRole('row', { name: new RegExp(created.body.id as string) })
    await expect(row.getByText('pending').isVisible()).resolves.toBe(true)

    await nav('Overview')
    await button('+1d').click()
    await flashSaying(/Clock advanced by 1d/)
    await expect(flash().textContent()).resolves.toContain('expired')
    await shoot('overview-after-advance')

    await nav('Checkout Sessions')
    await expect(row.getByText('expired').isVisible()).resolves.toBe(true)
    await shoot('sessions')
    await row.getByRole('link', { name: created.body.id as string }).click()
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(created.body.id as string)
    await shoot('session-detail')
    expect((await api.get(`/v1/checkout-sessions/${created.body.id}`)).body.status).toBe('cancelled')
  })

  it('edits and sends a draft invoice', async () => {
    const draft = await api.post(
      '/v1/invoices',
      { customerName: 'Lautoka Surf Club', customerEmail: 'accounts@surfclub.example', dueDate: '2099-12-15', items: [{ description: 'Kava bowl', quantity: 1, unitPrice: 4550 }] },
      { headers: { 'idempotency-key': 'browser-draft' } },
    )
    expect(draft.status).toBe(201)
    await nav('Invoices')
    await shoot('invoices')
    await page.getByRole('row', { name: /Lautoka Surf Club/ }).getByRole('link').first().click()
    const firstItem = page.getByRole('group', { name: 'Item 1', exact: true })
    await firstItem.getByLabel('Quantity').fill('2')
    await button('Save draft').click()
    await flashSaying(/saved|Saved/)
    expect((await api.get(`/v1/invoices/${draft.body.id}`)).body.total).toBe(9100)

    await button('Send invoice').click()
    // The form's answer has arrived once its message shows; only then is the API asked.
    await flashSaying(/Sent as INV-\d+/)
    const sent = (await api.get(`/v1/invoices/${draft.body.id}`)).body
    expect(sent.status).toBe('sent')
    expect(sent.number).toMatch(/^INV-\d+$/)
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(sent.number as string)
    await expect(page.locator('iframe.pdf-preview').count()).resolves.toBe(1)
    await shoot('invoice-detail')

    await button('E-mail to customer').click()
    await flashSaying('E-mailed to accounts@surfclub.example')
  })

  it('switches to the manual schedule and requests a payout', async () => {
    const session = await api.post('/v1/checkout-sessions', { amount: 12000, currency: 'FJD' }, { headers: { 'idempotency-key': 'browser-payout' } })
    await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })

    await nav('Settings')
    await page.getByLabel('Payout schedule').selectOption('manual')
    await button('Save settings').click()
    await flashSaying(/saved|Saved/)
    await shoot('settings')
    expect((await api.get('/_sim/settings')).body.payoutSchedule).toBe('manual')

    await nav('Payouts')
    await button('Request payout now').click()
    await page.locator('.flash-ok', { hasText: /Payout po_\w+ of FJ\$120\.00 requested/ }).waitFor()
    const payouts = (await api.get('/v1/payouts')).body.data as { id: string; amount: number }[]
    expect(payouts.map((payout) => payout.amount)).toEqual([12000])
    await expect(page.getByRole('row', { name: new RegExp(payouts[0]!.id) }).isVisible()).resolves.toBe(true)
    await expect(page.locator('svg.chart rect').count()).resolves.toBeGreaterThan(0)
    await shoot('payouts')
    await page.getByRole('link', { name: payouts[0]!.id }).click()
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(payouts[0]!.id)
    await shoot('payout-detail')
  })

  it('adds an endpoint and resends an event to a local receiver', async () => {
    await nav('Webhooks')
    await page.getByLabel('Endpoint URL').fill(receiver.url)
    await button('Add endpoint').click()
    await expect(page.getByTestId('secret').textContent()).resolves.toMatch(/^whsec_/)
    await receiver.waitFor(1)
    await endpointsActive(api)
    await shoot('webhooks')

    const session = await api.post('/v1/checkout-sessions', { amount: 700, currency: 'FJD' }, { headers: { 'idempotency-key': 'browser-event' } })
    await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })
    const delivered = await receiver.waitFor(4)
    const succeeded = delivered.map((request) => JSON.parse(request.body) as { event_id: string; type: string }).find((event) => event.type === 'checkout_session.succeeded')!

    await nav('Events')
    await shoot('events')
    await page.getByRole('link', { name: succeeded.event_id }).click()
    await expect(page.getByRole('heading', { name: 'checkout_session.succeeded', level: 1 }).isVisible()).resolves.toBe(true)
    await button('Resend').click()
    // Wait for the form's redirect to land before reloading, or the reload races the navigation.
    await flashSaying(`Sent ${succeeded.event_id} again, same event id`)
    const again = await receiver.waitFor(5)
    expect(JSON.parse(again[4]!.body).event_id).toBe(succeeded.event_id)
    expect(again[4]!.headers['x-service-event-id']).toBe(succeeded.event_id)
    await page.reload()
    await shoot('event-detail')
  })

  it('shows new events on the Events page without a reload', async () => {
    await nav('Events')
    const session = await api.post('/v1/checkout-sessions', { amount: 900, currency: 'FJD' }, { headers: { 'idempotency-key': 'browser-live' } })
    await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })
    const newest = (await api.get('/_sim/events')).body.data[0] as { event_id: string }
    // dashboard.js refreshes the list every 3 s; the page itself is not reloaded.
    await page.getByRole('link', { name: newest.event_id }).waitFor({ timeout: 10_000 })
  })

  it('rotates a key: the new secret key is shown once and works', async () => {
    await nav('Developers')
    const row = page.getByRole('row', { name: new RegExp(`${merchant.secret.slice(-4)}`) })
    await row.getByRole('button', { name: 'Rotate' }).click()
    const rotated = (await page.getByTestId('secret').textContent())!
    expect(rotated).toMatch(/^sk_test_/)
    await shoot('developers')
    expect((await client(serve.baseUrl, rotated).get('/v1/merchants/me')).status).toBe(200)
    await page.reload()
    await expect(page.getByTestId('secret').count()).resolves.toBe(0)
    await expect(page.content()).resolves.not.toContain(rotated)
  })

  it('shows the e-mailed invoice in the outbox as the customer sees it', async () => {
    await nav('Outbox')
    await expect(page.getByRole('heading', { name: 'Outbox', level: 1 }).isVisible()).resolves.toBe(true)
    await shoot('outbox')
    await page.getByRole('row', { name: /accounts@surfclub\.example/ }).getByRole('link').click()
    const email = page.frameLocator('iframe.email-preview')
    await expect(email.getByText('Lautoka Surf Club').first().isVisible()).resolves.toBe(true)
    await shoot('email')
  })

  it('adds an API fault from its page, shows the request it struck, and the doctor\'s findings', async () => {
    await nav('API faults')
    await page.getByLabel('Route').fill('POST /v1/checkout-sessions')
    await page.getByLabel('Action').selectOption('lose_response')
    await button('Add fault').click()
    await flashSaying(/Added fault flt_\w+: lose_response on POST \/v1\/checkout-sessions/)
    // The merchant's client loses the answer, and retries with a new key: two sessions.
    for (const key of ['browser-attempt-1', 'browser-attempt-2']) {
      await fetch(`${serve.baseUrl}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.secret}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ amount: 4550, currency: 'FJD', metadata: { order: 'browser' } }),
      }).catch(() => undefined)
    }
    await page.reload()
    await expect(page.getByRole('row', { name: /POST \/v1\/checkout-sessions .*lose_response flt_/ }).isVisible()).resolves.toBe(true)
    await shoot('faults')
    await nav('Doctor')
    await expect(page.getByRole('heading', { name: /create retried with a new Idempotency-Key/ }).isVisible()).resolves.toBe(true)
    await page.getByLabel('Window').selectOption('1h')
    await button('Check').click()
    await expect(page.getByRole('heading', { name: /create retried with a new Idempotency-Key/ }).isVisible()).resolves.toBe(true)
    await shoot('doctor')
  })

  it('fits a phone screen on every page and works from the keyboard', async () => {
    const phone = await context.newPage()
    await phone.setViewportSize({ width: 390, height: 844 })
    for (const path of ['', '/sessions', '/invoices', '/payouts', '/webhooks', '/events', '/developers', '/settings', '/outbox', '/faults', '/doctor']) {
      await phone.goto(`${serve.baseUrl}/dashboard${path}`)
      // A string, evaluated in the page: the test's own types know no DOM. Scrolling rows (tables, the navigation) may be wider.
      const overflow = await phone.evaluate<string[]>(`[...document.querySelectorAll('body *')]
        .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !element.closest('.table-wrap, .sidenav ul'))
        .map((element) => element.tagName + '.' + element.className)`)
      expect(overflow, path).toEqual([])
    }
    await phone.goto(`${serve.baseUrl}/dashboard/payouts`)
    await saveScreenshot(phone, 'dashboard-payouts-phone')
    // A display name of one 100-letter word made the overview 1002 px wide on a phone; it wraps in the top bar.
    await api.patch('/_sim/settings', { displayName: `Kava${'x'.repeat(96)}` })
    await phone.goto(`${serve.baseUrl}/dashboard`)
    await expect(phone.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390)
    await saveScreenshot(phone, 'dashboard-long-name-phone')
    await api.patch('/_sim/settings', { displayName: 'Kava Kitchen Ltd' })

    await phone.keyboard.press('Tab')
    await expect(phone.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Skip to content')
    await phone.close()
  })

  it('runs on the merchant\'s clock: a day and an hour have passed', async () => {
    const clock = (await api.get('/_sim/clock')).body
    // The +1d advance waited on the local receiver for a moment; the wall
    // clock moved on meanwhile, so the offset is a day less that wait.
    expect(clock.offsetMs).toBeGreaterThan(DAY - 10_000)
    expect(clock.offsetMs).toBeLessThan(DAY + HOUR)
  })
})
