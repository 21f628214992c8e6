import { inflateSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { DAY, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'
import { SAMPLE_INVOICE, draftInvoice, idempotent, sentInvoice } from '../helpers/invoices.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

let base: string
// 2026-11-22 10:00 UTC is 22:00 the same day in Fiji (UTC+12).
const START = Date.UTC(2026, 10, 22, 10, 0, 0)

const server = useTestServer({ wall: new ManualWallClock(START) })
beforeAll(async () => {
  base = server().baseUrl
})

async function open(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init })
  return { status: response.status, headers: response.headers, html: await response.text() }
}

/** What a PDF draws: the glyph ids its text operators show (`0000` is a box, a character the font lacks) and the code points its fonts' ToUnicode maps give them. */
function drawnText(pdf: Buffer): { glyphIds: string[]; codePoints: string[] } {
  const streams = [...pdf.toString('latin1').matchAll(/stream\r?\n/g)].flatMap((match) => {
    const start = match.index + match[0].length
    try {
      return [inflateSync(pdf.subarray(start, pdf.indexOf('endstream', start, 'latin1'))).toString('latin1')]
    } catch {
      return []
    }
  })
  const hexGroups = (text: string) => [...text.matchAll(/<([0-9a-f]+)>/gi)].flatMap((match) => match[1]!.toLowerCase().match(/.{4}/g) ?? [])
  return {
    glyphIds: streams.flatMap((stream) => (stream.match(/\[[^\]]*\] TJ/g) ?? []).flatMap(hexGroups)),
    codePoints: streams.filter((stream) => stream.includes('beginbfrange')).flatMap((cmap) => (cmap.match(/\[[^\]]*\]/g) ?? []).flatMap(hexGroups)),
  }
}

const pay = (url: string) => open(`${url}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })

describe('GET /i/{token}', () => {
  it('shows the merchant, number, customer, items, tax line, total, due date and a Pay button', async () => {
    const { invoice } = await sentInvoice(base)
    const page = await open(invoice.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const path = new URL(invoice.url).pathname
    for (const expected of [
      'Kava Kitchen Ltd',
      `Invoice <bdi>${invoice.number}</bdi>`,
      'Lautoka Surf Club',
      'accounts@surfclub.example',
      'Kava bowl (tanoa), hand carved',
      'Delivery to Lautoka',
      '2 × FJ$450.50',
      'FJ$901.00',
      'Subtotal',
      'FJ$936.00',
      '<bdi>VAT</bdi> (12.5%)',
      'FJ$117.00',
      'Total (FJD)',
      'FJ$1,053.00',
      'Due 15 Dec 2026',
      'Issued</dt><dd>22 Nov 2026',
      'FJ-VAT-50-12345',
      'TEST MODE',
      `<form class="pay-form" method="post" action="${path}/pay">`,
      'Pay FJ$1,053.00</button>',
      `href="${path}/pdf"`,
    ]) {
      expect(page.html, expected).toContain(expected)
    }
    expect(page.html).not.toContain('Overdue')
  })

  it('sends the hosted pages’ security headers', async () => {
    const { invoice } = await sentInvoice(base)
    const page = await open(invoice.url)
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    )
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    const css = await open(`${base}/i/assets/invoice.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
  })

  it('escapes every merchant and customer string', async () => {
    const { invoice } = await sentInvoice(base, 
      {
        ...SAMPLE_INVOICE,
        customerName: 'Bob "<b>bold</b>" & Sons',
        vatNumber: '<i>VAT</i>',
        taxLabel: '<u>GST</u>',
        items: [{ description: '<img src=x onerror=alert(1)>', quantity: 1, unitPrice: 100 }],
      },
      '<script>alert("x")</script> Kava',
    )
    const page = await open(invoice.url)
    expect(page.html).not.toMatch(/<script|<img|<b>|<i>|<u>/)
    expect(page.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Kava')
    expect(page.html).toContain('Bob &quot;&lt;b&gt;bold&lt;/b&gt;&quot; &amp; Sons')
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(page.html).toContain('&lt;i&gt;VAT&lt;/i&gt;')
    expect(page.html).toContain('<bdi>&lt;u&gt;GST&lt;/u&gt;</bdi> (12.5%)')
  })

  it('keeps bidi controls in merchant and customer text from reordering the page or the PDF', async () => {
    // An override in the tax label would otherwise show its "(12.5%)" as "(%5.21)".
    const [rlo, lri, pdi, rlm] = ['\u202e', '\u2066', '\u2069', '\u200f']
    const texts = {
      customerName: `Surf${rlo} Club`,
      vatNumber: `${lri}50-1${pdi}`,
      taxLabel: `VAT${rlo}`,
      description: `Bowl ${lri}x${pdi} ${rlo}12`,
      displayName: `${rlm}Kava${rlo} Kitchen`,
    }
    const { api, invoice } = await sentInvoice(
      base,
      { ...SAMPLE_INVOICE, customerName: texts.customerName, vatNumber: texts.vatNumber, taxLabel: texts.taxLabel, items: [{ description: texts.description, quantity: 1, unitPrice: 1000 }] },
      texts.displayName,
    )
    // The API keeps what it was sent.
    expect((await api.get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ customerName: texts.customerName, taxLabel: texts.taxLabel })
    const page = await open(invoice.url)
    expect(page.html).toContain(`<title>Tax Invoice ${invoice.number} from Kava Kitchen</title>`)
    expect(page.html).toContain('<span class="merchant-initial" aria-hidden="true">K</span>')
    expect(page.html).toContain(`<bdi>${texts.taxLabel}</bdi> (12.5%)`)
    for (const text of Object.values(texts)) {
      // Shown, and only ever isolated.
      expect(page.html).toContain(`<bdi>${text}</bdi>`)
      expect(page.html.split(text).length).toBe(page.html.split(`<bdi>${text}</bdi>`).length)
    }
    // The PDF draws no glyph for a control: DejaVu Sans has none for the isolates, so they were boxes.
    const pdf = Buffer.from(await (await fetch(`${invoice.url}/pdf`)).arrayBuffer())
    const drawn = drawnText(pdf)
    expect(drawn.glyphIds).not.toContain('0000')
    expect(drawn.codePoints.filter((codePoint) => /^(200[ef]|202[a-e]|206[6-9]|061c)$/.test(codePoint))).toEqual([])
  })

  it('is a 404 page before the invoice is sent, and for unknown tokens', async () => {
    const { draft, send } = await draftInvoice(base)
    for (const url of [draft.url, `${draft.url}/pdf`, `${base}/i/not-a-token`, `${base}/i/not-a-token/pdf`, `${base}/i/a/b/c`, `${base}/i/%ZZ`, `${base}/i/%ZZ/pdf`]) {
      const page = await open(url)
      expect(page.status, url).toBe(404)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
      expect(page.html).toContain('Invoice not found')
      expect(page.html).not.toContain(draft.customerName)
    }
    expect((await pay(draft.url)).status).toBe(404)
    await send()
    expect((await open(draft.url)).status).toBe(200)
  })

  it('marks the invoice Overdue once its due date has passed in Fiji, and still takes payment', async () => {
    const { api, invoice } = await sentInvoice(base, { ...SAMPLE_INVOICE, dueDate: '2026-11-23' })
    expect((await open(invoice.url)).html).not.toContain('Overdue')
    // 22:00 on the 22nd in Fiji: one day on it is the 23rd (due, not late); two days on, the 24th.
    await api.post('/_sim/clock/advance', { ms: DAY })
    expect((await open(invoice.url)).html).not.toContain('Overdue')
    await api.post('/_sim/clock/advance', { ms: DAY })
    const page = await open(invoice.url)
    expect(page.html).toContain('<span class="status-badge status-bad">Overdue</span>')
    expect(page.html).toContain('Overdue: it was due on 23 Nov 2026')
    expect(page.html).toContain('Pay FJ$1,053.00</button>')
  })
})

describe('paying from the invoice page', () => {
  it('redirects Pay to the hosted checkout of one Checkout Session carrying the invoice number', async () => {
    const { api, invoice } = await sentInvoice(base)
    const first = await pay(invoice.url)
    expect(first.status).toBe(303)
    const location = first.headers.get('location')!
    expect(location).toMatch(/^\/pay\/cs_[A-Za-z0-9]+$/)
    // Two clicks on Pay make one payment: the open session is reused.
    expect((await pay(invoice.url)).headers.get('location')).toBe(location)
    const sessionId = location.split('/').pop()!
    const session = await api.get(`/v1/checkout-sessions/${sessionId}`)
    expect(session.body).toMatchObject({ amount: invoice.total, invoiceNumber: invoice.number, status: 'pending' })
    const checkout = await open(`${base}${location}`)
    expect(checkout.status).toBe(200)
    expect(checkout.html).toContain(`Invoice <bdi>${invoice.number}</bdi>`)
  })

  it('shows a paid invoice as paid, without a Pay button', async () => {
    const { api, invoice } = await sentInvoice(base)
    const sessionId = (await pay(invoice.url)).headers.get('location')!.split('/').pop()!
    expect((await api.post(`/_sim/checkout-sessions/${sessionId}/pay`, { outcome: 'succeeded' })).status).toBe(200)
    expect((await api.get(`/v1/invoices/${invoice.id}`)).body.status).toBe('paid')
    const page = await open(invoice.url)
    expect(page.status).toBe(200)
    expect(page.html).toContain('Paid on 22 Nov 2026')
    expect(page.html).toContain('<span class="status-badge status-ok">Paid</span>')
    expect(page.html).toContain('Amount paid')
    expect(page.html).not.toContain('pay-form')
    expect(page.html).toContain('Download PDF')
    // A stale page's Pay leads back to the invoice, which says it is paid.
    const again = await pay(invoice.url)
    expect(again.status).toBe(303)
    expect(again.headers.get('location')).toBe(new URL(invoice.url).pathname)
  })

  it('says a declined payment was declined, that nothing was taken and that the customer can try again', async () => {
    const { api, invoice } = await sentInvoice(base)
    const checkout = (await pay(invoice.url)).headers.get('location')!
    const declined = await open(`${base}${checkout}`, { method: 'POST', body: new URLSearchParams({ provider: 'card', outcome: 'failed' }) })
    // The checkout sends the customer back to the invoice page, naming the session.
    const back = declined.headers.get('location')!
    const sessionId = checkout.split('/').pop()!
    expect(back).toBe(`${invoice.url}?session_id=${sessionId}`)
    const page = await open(back)
    expect(page.html).toContain(
      '<p class="status-note status-bad" role="status"><strong>Payment declined</strong> Your payment to <bdi>Kava Kitchen Ltd</bdi> did not go through and no money was taken. You can try again.</p>',
    )
    expect(page.html).toContain('Pay FJ$1,053.00</button>')
    // Only the return from that declined payment says so: not the page opened afresh, nor another session's id.
    expect((await open(invoice.url)).html).not.toContain('Payment declined')
    const other = (await api.post('/v1/checkout-sessions', { amount: 100, currency: 'FJD' }, idempotent())).body.id
    expect((await api.post(`/_sim/checkout-sessions/${other}/pay`, { outcome: 'failed' })).status).toBe(200)
    expect((await open(`${invoice.url}?session_id=${other}`)).html).not.toContain('Payment declined')
    // Trying again pays through a new session; while that one is open, or once the invoice is paid, the old return
    // link no longer says declined (a payment under way is not a decline).
    const retry = (await pay(invoice.url)).headers.get('location')!
    expect(retry).not.toBe(checkout)
    expect((await open(back)).html).not.toContain('Payment declined')
    const paid = await open(`${base}${retry}`, { method: 'POST', body: new URLSearchParams({ provider: 'card', outcome: 'succeeded' }) })
    const afterPaid = await open(paid.headers.get('location')!)
    expect(afterPaid.html).toContain('Paid on')
    expect((await open(back)).html).not.toContain('Payment declined')
  })

  it('shows a voided invoice as voided, without a Pay button', async () => {
    const { api, invoice } = await sentInvoice(base)
    expect((await api.post(`/v1/invoices/${invoice.id}/void`, undefined, idempotent())).status).toBe(200)
    const page = await open(invoice.url)
    expect(page.html).toContain('This invoice was voided')
    expect(page.html).toContain('<span class="status-badge status-quiet">Void</span>')
    expect(page.html).not.toContain('pay-form')
  })

  it('says payments are unavailable for a live invoice while no Provider takes live payments', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const live = client(base, (await unlockLive(base, keys.secret)).secret)
    const draft = await live.post('/v1/invoices', SAMPLE_INVOICE, idempotent())
    const invoice = (await live.post(`/v1/invoices/${draft.body.id}/send`, undefined, idempotent())).body
    const page = await open(invoice.url)
    expect(page.html).not.toContain('TEST MODE')
    expect(page.html).toContain('Pay FJ$1,053.00</button>')
    await live.patch('/_sim/settings', { liveProviders: false })
    const refused = await pay(invoice.url)
    expect(refused.status).toBe(409)
    expect(refused.html).toContain('Payments are unavailable')
    // Not a dead end: the customer can get back to the invoice and its PDF.
    const token = new URL(invoice.url).pathname.split('/')[2]
    expect(refused.html).toContain(`href="/i/${token}">Back to the invoice</a>`)
  })

  it('serves the PDF as a download', async () => {
    const { invoice } = await sentInvoice(base)
    const response = await fetch(`${invoice.url}/pdf`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/pdf')
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.number}.pdf"`)
    expect(Buffer.from(await response.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-')
  })
})
