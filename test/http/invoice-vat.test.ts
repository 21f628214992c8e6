import { beforeAll, describe, expect, it } from 'vitest'
import { client, signupMerchant, useTestServer } from '../helpers/http.js'
import { SAMPLE_INVOICE, idempotent, sentInvoice } from '../helpers/invoices.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

// Issue 14: the VAT number is the seller's. Settings hold the merchant's; an Invoice's own `vatNumber` overrides it.
// The hosted page, the PDF (test/pdf/invoice-pdf.test.ts) and the e-mail show it under the seller's name, and the
// document is a "Tax Invoice" when the seller has one and charges a tax line.

let base: string
const server = useTestServer({ wall: new ManualWallClock(Date.UTC(2026, 10, 22, 10, 0, 0)) })
beforeAll(async () => {
  base = server().baseUrl
})

const SELLER_VAT = '50-12345-0-1'
const { vatNumber: _own, ...WITHOUT_OWN_NUMBER } = SAMPLE_INVOICE

async function page(url: string): Promise<string> {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  return response.text()
}

/** The merchant header of the hosted page: the seller's name and what goes with it. */
const sellerHeaderOf = (html: string): string => /<header class="merchant">[\s\S]*?<\/header>/.exec(html)?.[0] ?? ''
/** The customer-side details list (billed to, e-mail, issued, due). */
const detailsOf = (html: string): string => /<dl class="details invoice-details">[\s\S]*?<\/dl>/.exec(html)?.[0] ?? ''

describe('the seller\'s VAT number on the invoice', () => {
  it('comes from Settings when the invoice gives none: the API keeps the spec\'s field as given, and nothing more', async () => {
    const { invoice } = await sentInvoice(base, WITHOUT_OWN_NUMBER, 'Kava Kitchen Ltd', { vatNumber: SELLER_VAT })
    expect(invoice.vatNumber).toBeNull()
    // The service's Invoice has no field for the number shown: an integration must not come to rely on one.
    expect(Object.keys(invoice).filter((field) => /vat/i.test(field))).toEqual(['vatNumber'])
    const html = await page(invoice.url)
    expect(sellerHeaderOf(html)).toContain('<p class="merchant-name"><bdi>Kava Kitchen Ltd</bdi></p>')
    expect(sellerHeaderOf(html)).toContain(`<p class="merchant-detail">VAT No. <bdi>${SELLER_VAT}</bdi></p>`)
    // Not among the customer's details, between "Due" and the billed-to fields, any more.
    expect(detailsOf(html)).toContain('Billed to')
    expect(detailsOf(html)).not.toContain('VAT')
    expect(html).toContain(`<h1 class="invoice-heading">Tax Invoice <bdi>${invoice.number}</bdi></h1>`)
    expect(html).toContain(`<title>Tax Invoice ${invoice.number} from Kava Kitchen Ltd</title>`)
  })

  it('is the invoice\'s own when it gives one, in place of the one in Settings', async () => {
    const { invoice } = await sentInvoice(base, SAMPLE_INVOICE, 'Kava Kitchen Ltd', { vatNumber: SELLER_VAT })
    expect(invoice.vatNumber).toBe('FJ-VAT-50-12345')
    const header = sellerHeaderOf(await page(invoice.url))
    expect(header).toContain('VAT No. <bdi>FJ-VAT-50-12345</bdi>')
    expect(header).not.toContain(SELLER_VAT)
  })

  it('follows Settings as they change, as the display name does', async () => {
    const { api, invoice } = await sentInvoice(base, WITHOUT_OWN_NUMBER, 'Kava Kitchen Ltd', { vatNumber: SELLER_VAT })
    expect((await api.patch('/_sim/settings', { vatNumber: '50-99999-0-9' })).status).toBe(200)
    expect((await api.get(`/v1/invoices/${invoice.id}`)).body.vatNumber).toBeNull()
    expect(sellerHeaderOf(await page(invoice.url))).toContain('VAT No. <bdi>50-99999-0-9</bdi>')
    expect((await api.patch('/_sim/settings', { vatNumber: null })).status).toBe(200)
    const html = await page(invoice.url)
    expect(html).not.toContain('VAT No.')
    expect(html).toContain(`<h1 class="invoice-heading">Invoice <bdi>${invoice.number}</bdi></h1>`)
  })

  it('titles the document "Invoice" without a tax line, or without a VAT number', async () => {
    const { taxLabel: _label, taxPercent: _percent, ...untaxed } = WITHOUT_OWN_NUMBER
    const noTax = await sentInvoice(base, untaxed, 'Kava Kitchen Ltd', { vatNumber: SELLER_VAT })
    const noTaxPage = await page(noTax.invoice.url)
    expect(noTaxPage).toContain(`<h1 class="invoice-heading">Invoice <bdi>${noTax.invoice.number}</bdi></h1>`)
    expect(sellerHeaderOf(noTaxPage)).toContain(`VAT No. <bdi>${SELLER_VAT}</bdi>`)

    const unregistered = await sentInvoice(base, WITHOUT_OWN_NUMBER)
    expect(unregistered.invoice.vatNumber).toBeNull()
    const unregisteredPage = await page(unregistered.invoice.url)
    expect(unregisteredPage).toContain(`<h1 class="invoice-heading">Invoice <bdi>${unregistered.invoice.number}</bdi></h1>`)
    expect(unregisteredPage).not.toContain('VAT No.')
    expect(unregisteredPage).toContain('<bdi>VAT</bdi> (12.5%)')
  })

  it('is never another merchant\'s', async () => {
    await sentInvoice(base, WITHOUT_OWN_NUMBER, 'Someone Else', { vatNumber: '50-11111-0-1' })
    const mine = await sentInvoice(base, WITHOUT_OWN_NUMBER)
    expect(await page(mine.invoice.url)).not.toContain('50-11111-0-1')
  })
})

describe('the invoice e-mail', () => {
  it('says "Tax Invoice", with the seller\'s VAT number under the seller\'s name and the due date for people', async () => {
    const { api, invoice } = await sentInvoice(base, WITHOUT_OWN_NUMBER, 'Kava Kitchen Ltd', { vatNumber: SELLER_VAT })
    const sent = await api.post(`/_sim/invoices/${invoice.id}/email`)
    expect(sent.status).toBe(200)
    const { email } = sent.body
    expect(email.subject).toBe(`Tax Invoice ${invoice.number} from Kava Kitchen Ltd`)
    expect(email.text.split('\n').slice(0, 4)).toEqual([`Tax Invoice ${invoice.number} from Kava Kitchen Ltd`, `VAT No. ${SELLER_VAT}`, '', 'Bula Lautoka Surf Club,'])
    expect(email.text).toContain('Here is your tax invoice for FJ$1,053.00, due 15 Dec 2026.')
    expect(email.html).toMatch(new RegExp(`<h1[^>]*>Kava Kitchen Ltd</h1>\\s*<p[^>]*>VAT No. ${SELLER_VAT}</p>`))
    expect(email.html).toContain(`Tax Invoice ${invoice.number}</p>`)
  })

  it('says "Invoice" and names no VAT number when the seller has none', async () => {
    const { api, invoice } = await sentInvoice(base, WITHOUT_OWN_NUMBER)
    const { email } = (await api.post(`/_sim/invoices/${invoice.id}/email`)).body
    expect(email.subject).toBe(`Invoice ${invoice.number} from Kava Kitchen Ltd`)
    expect(email.text).not.toContain('VAT No.')
    expect(email.html).not.toContain('VAT No.')
    expect(email.text).toContain('Here is your invoice for FJ$1,053.00, due 15 Dec 2026.')
  })
})

describe('the number shown', () => {
  it('is not a create field: a body that sends sellerVatNumber is refused, naming it', async () => {
    const api = client(base, (await signupMerchant(base, 'business')).keys.secret)
    const refused = await api.post('/v1/invoices', { ...WITHOUT_OWN_NUMBER, sellerVatNumber: SELLER_VAT }, idempotent())
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('sellerVatNumber')
  })
})
