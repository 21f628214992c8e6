import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../server/start.js'
import { launchChromium, saveScreenshot, skipBrowserTests } from '../helpers/browser.js'
import { client, signupMerchant, startTestServer } from '../helpers/http.js'

describe.skipIf(skipBrowserTests)('the hosted invoice page in a browser', () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    server = await startTestServer()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  async function sentInvoice(overrides: Record<string, unknown> = {}) {
    const { keys } = await signupMerchant(server.baseUrl, 'business')
    const api = client(server.baseUrl, keys.secret)
    // The seller's VAT number, from Settings: the page shows it under the name and titles the invoice "Tax Invoice".
    await api.patch('/_sim/settings', { displayName: 'Kava Kitchen Ltd', vatNumber: '50-12345-0-1' })
    const created = await api.post(
      '/v1/invoices',
      {
        customerName: 'Lautoka Surf Club',
        customerEmail: 'accounts@surfclub.example',
        dueDate: '2099-12-15',
        taxLabel: 'VAT',
        taxPercent: 12.5,
        items: [
          { description: 'Kava bowl (tanoa), hand carved from vesi wood, with a coconut-shell bilo', quantity: 2, unitPrice: 45050 },
          { description: 'Delivery to Lautoka', quantity: 1, unitPrice: 3500 },
        ],
        ...overrides,
      },
      { headers: { 'idempotency-key': 'browser-create' } },
    )
    const sent = await api.post(`/v1/invoices/${created.body.id}/send`, undefined, { headers: { 'idempotency-key': 'browser-send' } })
    expect(sent.status).toBe(200)
    return { api, invoice: sent.body }
  }

  it('pays an invoice from its page through the hosted checkout, and the API then says paid', async () => {
    const { api, invoice } = await sentInvoice()
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(invoice.url)
    await expect(page.getByRole('heading', { name: `Tax Invoice ${invoice.number}`, exact: true }).isVisible()).resolves.toBe(true)
    await expect(page.locator('header.merchant .merchant-detail').innerText()).resolves.toBe('VAT No. 50-12345-0-1')
    await saveScreenshot(page, 'invoice-desktop')

    // Keyboard only: the Pay button is the first thing Tab reaches.
    await page.keyboard.press('Tab')
    await expect(page.locator(':focus').textContent()).resolves.toBe('Pay FJ$1,053.00')
    await Promise.all([page.waitForURL(/\/pay\/cs_/), page.keyboard.press('Enter')])
    await expect(page.getByText(`Invoice ${invoice.number}`).isVisible()).resolves.toBe(true)
    await saveScreenshot(page, 'invoice-checkout')

    await page.getByLabel('Card').check()
    await Promise.all([page.waitForURL((url) => url.pathname === new URL(invoice.url).pathname), page.getByRole('button', { name: 'Pay FJ$1,053.00' }).click()])
    await expect(page.getByText(/Paid on \d+ \w+ \d{4}/).isVisible()).resolves.toBe(true)
    await expect(page.getByRole('button', { name: /^Pay / }).count()).resolves.toBe(0)
    await saveScreenshot(page, 'invoice-paid')

    const fetched = await api.get(`/v1/invoices/${invoice.id}`)
    expect(fetched.body).toMatchObject({ status: 'paid', number: invoice.number })
    expect(fetched.body.paidAt).toEqual(expect.any(Number))
    await page.close()
  })

  it('reads on a phone: no sideways scrolling, items without the Qty and Unit price columns', async () => {
    const { invoice } = await sentInvoice()
    const page = await browser.newPage({ viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true })
    await page.goto(invoice.url)
    // A string, evaluated in the page: the test's own types know no DOM.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(overflow).toBe(0)
    await expect(page.getByText('2 × FJ$450.50').isVisible()).resolves.toBe(true)
    await expect(page.getByRole('columnheader', { name: 'Unit price' }).isVisible()).resolves.toBe(false)
    await saveScreenshot(page, 'invoice-phone')
    await page.close()
  })

  // A long value squeezed its label to "Billed / to" and "E- / mail" at a desk.
  it('keeps each detail\'s label on one line beside a long value, at a desk and on a phone', async () => {
    const { invoice } = await sentInvoice({ customerName: 'C'.repeat(100), customerEmail: `${'e'.repeat(60)}@${'d'.repeat(60)}.example` })
    for (const width of [1280, 360]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } })
      await page.goto(invoice.url)
      const lines = await page.evaluate<Record<string, number>>(`Object.fromEntries([...document.querySelectorAll('dt')].map((dt) => {
        const range = document.createRange()
        range.selectNodeContents(dt)
        return [dt.textContent, range.getClientRects().length]
      }))`)
      expect(lines['Billed to'], String(width)).toBe(1)
      expect(lines['E-mail'], String(width)).toBe(1)
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0)
      await page.close()
    }
  })

  it('reads on a phone with a tax label of one 40-character word: it breaks, the amount stays on screen', async () => {
    const { invoice } = await sentInvoice({ taxLabel: 'EnvironmentAndClimateAdaptationLevyFijiX' })
    const page = await browser.newPage({ viewport: { width: 360, height: 780 }, isMobile: true, hasTouch: true })
    await page.goto(invoice.url)
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(overflow).toBe(0)
    await page.close()
  })
})
