import { readFileSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { launchChromium, saveScreenshot, skipBrowserTests } from '../helpers/browser.js'
import { client, endpointsActive, signupMerchant, startTestServer } from '../helpers/http.js'
import { startReceiver, type Receiver } from '../helpers/receiver.js'

/**
 * The dashboard pages issue 14 fixed, in Chromium at a desk (1280 px) and on
 * a phone (390 px): the Webhooks form's URL field, forms that come back with
 * what was typed, the Settings VAT number, Outbox attachments that download,
 * and "Resend to every endpoint". Each page is saved at both widths as
 * test-artifacts/screenshots/dashboard-fixed-*-{1280,390}.png.
 */
describe.skipIf(skipBrowserTests)('the dashboard forms a newcomer meets', () => {
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let receiver: Receiver
  let api: ReturnType<typeof client>

  beforeAll(async () => {
    server = await startTestServer()
    browser = await launchChromium()
    receiver = await startReceiver()
    const { keys } = await signupMerchant(server.baseUrl, 'business')
    api = client(server.baseUrl, keys.secret)
    await api.patch('/_sim/settings', { displayName: 'Kava Kitchen Ltd' })
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    page = await context.newPage()
    page.setDefaultTimeout(5000)
    page.on('dialog', (dialog) => void dialog.accept())
    const link = await api.post('/_sim/dashboard/login-links')
    await page.goto(link.body.url as string)
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await receiver?.close()
    await server?.close()
  })

  /** The page as it is, at a desk and on a phone; the page is not reloaded in between (a form's answer shows once). */
  async function shootBoth(name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 1280 ? 900 : 844 })
      await saveScreenshot(page, `dashboard-fixed-${name}-${width}`)
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  const open = (path: string) => page.goto(`${server.baseUrl}/dashboard${path}`)
  const button = (name: string) => page.getByRole('button', { name, exact: true })
  const flashSaying = (text: string | RegExp) => page.locator('.flash', { hasText: text }).waitFor()

  /** How the URL field fits: its width, and whether its placeholder fits inside it (measured in the page's font). */
  const urlField = () =>
    page.evaluate<{ width: number; formWidth: number; placeholderFits: boolean }>(`(() => {
      const input = document.getElementById('endpoint-url')
      const style = getComputedStyle(input)
      const context = document.createElement('canvas').getContext('2d')
      context.font = style.font
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      return {
        width: input.getBoundingClientRect().width,
        formWidth: input.form.getBoundingClientRect().width,
        placeholderFits: context.measureText(input.placeholder).width <= room,
      }
    })()`)

  it('gives the Webhooks URL field the form\'s width, its placeholder whole, at a desk and on a phone', async () => {
    await open('/webhooks')
    const desk = await urlField()
    // Beside the button, it takes the rest of the form; no longer a 220 px field under a hint.
    expect(desk.width).toBeGreaterThan(desk.formWidth * 0.6)
    expect(desk.placeholderFits).toBe(true)
    await page.setViewportSize({ width: 390, height: 844 })
    const phone = await urlField()
    // On a phone the button goes under the field, which takes the whole row.
    expect(phone.width).toBeGreaterThanOrEqual(phone.formWidth - 1)
    expect(phone.placeholderFits).toBe(true)
    await page.setViewportSize({ width: 1280, height: 900 })
    await shootBoth('webhooks')
  })

  it('brings a refused endpoint back as typed', async () => {
    await open('/webhooks')
    await page.getByLabel('Endpoint URL').fill('ftp://shop.example/webhooks')
    await button('Add endpoint').click()
    await flashSaying('Field: url')
    await expect(page.getByLabel('Endpoint URL').inputValue()).resolves.toBe('ftp://shop.example/webhooks')
    await shootBoth('webhooks-refused')
  })

  it('brings a refused new draft back with every field and item as typed', async () => {
    await open('/invoices')
    await page.getByLabel('Customer name').fill('Nadi Bay Hotel')
    await page.getByLabel('Customer e-mail (optional)').fill('accounts@nadibay.example')
    await page.getByLabel('Due date').fill('2099-12-31')
    const item = page.getByRole('group', { name: 'Item 1', exact: true })
    await item.getByLabel('Description').fill('Masi print, large')
    await item.getByLabel('Quantity').fill('9999')
    await item.getByLabel('Unit price (FJD)').fill('4999')
    await page.getByLabel('Tax label').fill('VAT')
    await page.getByLabel('Tax percent').fill('12.5')
    await button('Create draft').click()
    await flashSaying('must be under FJ$5,000.00')
    await expect(page.getByLabel('Customer name').inputValue()).resolves.toBe('Nadi Bay Hotel')
    await expect(page.getByLabel('Due date').inputValue()).resolves.toBe('2099-12-31')
    await expect(item.getByLabel('Quantity').inputValue()).resolves.toBe('9999')
    await expect(item.getByLabel('Unit price (FJD)').inputValue()).resolves.toBe('4999')
    await expect(page.getByLabel('Tax percent').inputValue()).resolves.toBe('12.5')
    await shootBoth('invoice-draft-refused')

    // Corrected in place, it goes through.
    await item.getByLabel('Quantity').fill('2')
    await item.getByLabel('Unit price (FJD)').fill('120')
    await button('Create draft').click()
    await flashSaying(/Draft #\d+ created for Nadi Bay Hotel: FJ\$270\.00/)
  })

  it('brings a refused draft edit back as typed', async () => {
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/^Invoice Draft #\d+$/)
    await page.getByLabel('Customer name').fill('Nadi Bay Hotel & Spa')
    const item = page.getByRole('group', { name: 'Item 1', exact: true })
    await item.getByLabel('Quantity').fill('3')
    // Spaces only: the browser lets them through, the simulator (which trims) does not.
    const second = page.getByRole('group', { name: 'Item 2', exact: true })
    await second.getByLabel('Description').fill('   ')
    await second.getByLabel('Quantity').fill('1')
    await second.getByLabel('Unit price (FJD)').fill('15')
    await button('Save draft').click()
    await flashSaying('Field: items[1].description')
    await expect(page.getByLabel('Customer name').inputValue()).resolves.toBe('Nadi Bay Hotel & Spa')
    await expect(item.getByLabel('Quantity').inputValue()).resolves.toBe('3')
    await expect(second.getByLabel('Unit price (FJD)').inputValue()).resolves.toBe('15')
    await expect(page.getByLabel('Tax percent').inputValue()).resolves.toBe('12.5')
    await shootBoth('invoice-edit-refused')
  })

  it('keeps the VAT number in Settings, and a refused save comes back as typed', async () => {
    await open('/settings')
    await page.getByLabel('VAT number (optional)').fill('50-12345-0-1')
    await page.getByLabel('Invoice number prefix').fill('BILL-')
    await button('Save settings').click()
    await flashSaying('Field: invoicePrefix')
    await expect(page.getByLabel('VAT number (optional)').inputValue()).resolves.toBe('50-12345-0-1')
    await expect(page.getByLabel('Invoice number prefix').inputValue()).resolves.toBe('BILL-')
    await shootBoth('settings-refused')

    await page.getByLabel('Invoice number prefix').fill('INV-2026')
    await button('Save settings').click()
    await flashSaying('Settings saved')
    expect((await api.get('/_sim/settings')).body).toMatchObject({ vatNumber: '50-12345-0-1', invoicePrefix: 'INV-2026' })
    await shootBoth('settings')
  })

  it('downloads an e-mail\'s PDF attachment from the Outbox', async () => {
    const draft = (await api.get('/v1/invoices')).body.data[0] as { id: number }
    await api.post(`/v1/invoices/${draft.id}/send`, undefined, { headers: { 'idempotency-key': 'forms-send' } })
    await api.post(`/_sim/invoices/${draft.id}/email`)
    await open('/outbox')
    await page.getByRole('row', { name: /accounts@nadibay\.example/ }).getByRole('link').click()
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'INV-20260001.pdf' }).click()])
    expect(download.suggestedFilename()).toBe('INV-20260001.pdf')
    expect(readFileSync(await download.path()).subarray(0, 5).toString()).toBe('%PDF-')
    // The e-mail is a Tax Invoice from a seller with a VAT number.
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Tax Invoice INV-20260001 from Kava Kitchen Ltd')
    await shootBoth('outbox-email')
  })

  // A 100-letter description pushed Quantity, Unit price and Amount 800 px past the Items card at a desk.
  it('breaks a long word that a merchant wrote inside its table, and never an amount', async () => {
    const word = 'W'.repeat(100)
    const invoice = await api.post(
      '/v1/invoices',
      { customerName: `C${'c'.repeat(99)}`, customerEmail: 'long@words.example', dueDate: '2026-12-31', items: [{ description: word, quantity: 1, unitPrice: 123456 }] },
      { headers: { 'idempotency-key': 'forms-long-word' } },
    )
    const session = await api.post('/v1/checkout-sessions', { amount: 500, currency: 'FJD', metadata: { ['k'.repeat(40)]: 'v'.repeat(500) } }, { headers: { 'idempotency-key': 'forms-long-metadata' } })
    const tablesOverflow = () => page.evaluate<number[]>(`[...document.querySelectorAll('.table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth)`)
    for (const path of [`/invoices/${invoice.body.id}`, '/invoices', `/sessions/${session.body.id}`]) {
      await open(path)
      const overflow = await tablesOverflow()
      expect(overflow.length, path).toBeGreaterThan(0)
      expect(overflow, path).toEqual(overflow.map(() => 0))
    }
    await open(`/invoices/${invoice.body.id}`)
    // The amount's text is on one line: a range over it has one box.
    const amountLines = await page.evaluate<number>(`(() => {
      const cell = [...document.querySelectorAll('td')].find((td) => td.textContent === 'FJ$1,234.56')
      const range = document.createRange()
      range.selectNodeContents(cell)
      return range.getClientRects().length
    })()`)
    expect(amountLines).toBe(1)
    await shootBoth('long-word')

    // The e-mail's card is a table too: the name made it 1,142 px wide on a phone, and 1,126 px of a 480 px card at a desk.
    await api.post(`/v1/invoices/${invoice.body.id}/send`, undefined, { headers: { 'idempotency-key': 'forms-long-word-send' } })
    const email = (await api.post(`/_sim/invoices/${invoice.body.id}/email`)).body.email as { id: string }
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await open(`/outbox/${email.id}/html`)
      const sizes = await page.evaluate<{ overflow: number; card: number }>(`({
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        card: document.querySelector('table').getBoundingClientRect().width,
      })`)
      expect(sizes.overflow, String(width)).toBe(0)
      expect(sizes.card, String(width)).toBeLessThanOrEqual(480)
      await saveScreenshot(page, `dashboard-fixed-long-word-email-${width}`)
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it('greets a browser at the base URL with the start page', async () => {
    await page.goto(`${server.baseUrl}/`)
    await expect(page.getByRole('heading', { name: 'Bula simulator', level: 1 }).isVisible()).resolves.toBe(true)
    await page.getByRole('link', { name: 'OpenAPI description' }).waitFor()
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(overflow).toBe(0)
    await shootBoth('start-page')
    await page.getByRole('link', { name: 'Dashboard' }).click()
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 }).isVisible()).resolves.toBe(true)
  })

  it('resends an event to every endpoint at once', async () => {
    expect((await api.post('/v1/webhook-endpoints', { url: receiver.url })).status).toBe(200)
    await receiver.waitFor(1)
    await endpointsActive(api)
    const session = await api.post('/v1/checkout-sessions', { amount: 700, currency: 'FJD' }, { headers: { 'idempotency-key': 'forms-event' } })
    await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })
    const delivered = await receiver.waitFor(4)
    const succeeded = delivered.map((request) => JSON.parse(request.body) as { event_id: string; type: string }).find((event) => event.type === 'checkout_session.succeeded')!
    await open(`/events/${succeeded.event_id}`)
    await button('Resend to every endpoint').click()
    await flashSaying(`Sent ${succeeded.event_id} again, same event id`)
    const again = await receiver.waitFor(5)
    expect(again[4]!.headers['x-service-event-id']).toBe(succeeded.event_id)
    await shootBoth('event-resend-all')
  })

  it('leaves the Events page for the sign-in page once its key is revoked, instead of showing that page inside the list', async () => {
    const { key } = (await api.post('/v1/api-keys', { type: 'secret' })).body as { key: { id: string; plaintext: string } }
    const other = await browser.newContext()
    try {
      const tab = await other.newPage()
      tab.setDefaultTimeout(10_000)
      await tab.goto((await client(server.baseUrl, key.plaintext).post('/_sim/dashboard/login-links')).body.url as string)
      await tab.goto(`${server.baseUrl}/dashboard/events`)
      await api.post(`/v1/api-keys/${key.id}/revoke`)
      // dashboard.js refreshes the list every 3 s: the next refresh finds the session ended.
      await tab.waitForURL(/\/dashboard\/sign-in\?ended=key$/)
      await expect(tab.getByText('You were signed out').isVisible()).resolves.toBe(true)
      await expect(tab.locator('main main').count()).resolves.toBe(0)
    } finally {
      await other.close()
    }
  })
})
