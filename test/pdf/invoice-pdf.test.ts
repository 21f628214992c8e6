import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderInvoicePdf } from '../../server/pdf/invoice-pdf.js'
import type { RunningServer } from '../../server/start.js'
import { DAY, HOUR, startTestServer } from '../helpers/http.js'
import { idempotent, sentInvoice } from '../helpers/invoices.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

/** pdftotext and pdftoppm come with poppler-utils; without them the text checks are skipped, not failed. */
const hasPoppler = spawnSync('pdftotext', ['-v']).error === undefined
const MISSING_POPPLER = 'PDF text checks skipped: pdftotext not found. Install it with: sudo apt-get install -y poppler-utils'
if (!hasPoppler) console.warn(MISSING_POPPLER)
/** zbarimg (zbar-tools) is optional: with it, the QR code is read back as a phone would. */
const hasZbar = spawnSync('zbarimg', ['--version']).error === undefined

const ARTIFACTS = path.join('test-artifacts', 'pdf')

// 2026-11-22 10:00 UTC is 22:00 the same day in Fiji (UTC+12).
const START = Date.UTC(2026, 10, 22, 10, 0, 0)
const wall = new ManualWallClock(START)
let server: RunningServer
let base: string

beforeAll(async () => {
  server = await startTestServer({ wall })
  base = server.baseUrl
  mkdirSync(ARTIFACTS, { recursive: true })
})
afterAll(() => server.close())


const LONG_DESCRIPTION =
  'Catering for the Lautoka regatta: lovo for 120 guests with palusami, kokoda and cassava, served over two days at the clubhouse, staff included'

/** A merchant with a display name, and one sent invoice made through the API. */

/** Non-Latin-1 letters: the PDF's fonts must carry them (Helvetica's encoding would garble them). */
const DISPLAY_NAME = 'Ōtā Kava & Co.'

const fullInvoice = {
  customerName: 'Lautoka Surf Club',
  customerEmail: 'accounts@surfclub.example',
  dueDate: '2026-12-15',
  taxLabel: 'VAT',
  // Fiji's standard VAT rate since 1 August 2025.
  taxPercent: 12.5,
  vatNumber: 'FJ-VAT-50-12345',
  items: [
    { description: 'Kava bowl (tanoa), hand carved', quantity: 2, unitPrice: 45050 },
    { description: LONG_DESCRIPTION, quantity: 1, unitPrice: 120000 },
    { description: 'Delivery to Lautoka', quantity: 1, unitPrice: 3500 },
  ],
}

async function fetchBytes(url: string, key?: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} })
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

function save(name: string, pdf: Buffer): string {
  const file = path.join(ARTIFACTS, `${name}.pdf`)
  writeFileSync(file, pdf)
  return file
}

/** The text a reader copies out of the PDF, whitespace collapsed so wrapped lines still match. */
function textOf(file: string): string {
  return execFileSync('pdftotext', ['-raw', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
}

const pageCount = (file: string): number => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1])

/** Page 1 as a PNG next to the PDF, for people to look at. */
const renderPng = (file: string): void => {
  execFileSync('pdftoppm', ['-png', '-r', '110', '-f', '1', '-l', '1', '-singlefile', file, file.replace(/\.pdf$/, '')])
}

describe('the invoice PDF', () => {
  it('is a PDF, served by the API as an attachment named after the number', async () => {
    const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
    const pdf = await fetchBytes(invoice.pdfUrl, key)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get('content-type')).toBe('application/octet-stream')
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.number}.pdf"`)
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-')
  })

  it('renders the same bytes every time, whatever the time of day', async () => {
    const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
    const first = await fetchBytes(invoice.pdfUrl, key)
    wall.tick(HOUR)
    const second = await fetchBytes(invoice.pdfUrl, key)
    const record = server.ctx.store.get('invoices', String(invoice.id))!
    const inProcess = await renderInvoicePdf(server.ctx, record)
    expect(second.bytes.equals(first.bytes)).toBe(true)
    expect(inProcess.equals(first.bytes)).toBe(true)
  })

  it('is byte for byte the file the hosted invoice page downloads', async () => {
    const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
    const fromApi = await fetchBytes(invoice.pdfUrl, key)
    const fromPage = await fetchBytes(`${invoice.url}/pdf`)
    expect(fromPage.status).toBe(200)
    expect(fromPage.bytes.equals(fromApi.bytes)).toBe(true)
  })

  it('changes when the invoice does: paid', async () => {
    const { api, key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
    const before = await fetchBytes(invoice.pdfUrl, key)
    expect((await api.post(`/_sim/invoices/${invoice.id}/pay`, { outcome: 'succeeded' })).status).toBe(200)
    const after = await fetchBytes(invoice.pdfUrl, key)
    expect(after.bytes.equals(before.bytes)).toBe(false)
  })

  describe.skipIf(!hasPoppler)('text a reader can copy (pdftotext)', () => {
    it('holds the merchant, number, dates, customer, every item, tax, total, VAT number and pay URL', async () => {
      const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
      const file = save('invoice', (await fetchBytes(invoice.pdfUrl, key)).bytes)
      renderPng(file)
      const text = textOf(file)
      expect(invoice.total).toBe(240300)
      for (const expected of [
        DISPLAY_NAME,
        'TAX INVOICE',
        invoice.number,
        'Issue date 22 Nov 2026',
        'Due date 15 Dec 2026',
        'Bill to'.toUpperCase(),
        'Lautoka Surf Club',
        'accounts@surfclub.example',
        'Kava bowl (tanoa), hand carved',
        LONG_DESCRIPTION,
        'Delivery to Lautoka',
        'FJ$450.50',
        'FJ$901.00',
        'FJ$1,200.00',
        'Subtotal FJ$2,136.00',
        'VAT (12.5%) FJ$267.00',
        'Total (FJD) FJ$2,403.00',
        // The seller's, under the seller's name: before the customer's block.
        `${DISPLAY_NAME} VAT No. FJ-VAT-50-12345`,
        invoice.url,
        'TEST MODE',
        'Page 1 of 1',
      ]) {
        expect(text, expected).toContain(expected)
      }
      expect(text).not.toMatch(/OVERDUE|PAID|VOID/)
    })

    it.skipIf(!hasZbar)('has a QR code that reads as the pay URL (zbarimg)', async () => {
      const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
      const file = save('qr', (await fetchBytes(invoice.pdfUrl, key)).bytes)
      execFileSync('pdftoppm', ['-png', '-r', '150', '-singlefile', file, file.replace(/\.pdf$/, '')])
      const decoded = execFileSync('zbarimg', ['-q', '--raw', file.replace(/\.pdf$/, '.png')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      expect(decoded.trim()).toBe(invoice.url)
    })

    it('pins the document dates to when the invoice was sent', async () => {
      const { key, invoice } = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
      const file = save('dates', (await fetchBytes(invoice.pdfUrl, key)).bytes)
      const info = execFileSync('pdfinfo', ['-isodates', file], { encoding: 'utf8' })
      const sentAt = new Date(invoice.sentAt).toISOString().replace(/\.\d{3}Z$/, '')
      expect(info).toMatch(new RegExp(`CreationDate:\\s+${sentAt}`))
      expect(info).toMatch(new RegExp(`ModDate:\\s+${sentAt}`))
      expect(info).toMatch(/Title:\s+Tax Invoice INV-0001/)
    })

    it('prints the VAT number from Settings as the seller\'s, titled TAX INVOICE only with a tax line (issue 14)', async () => {
      const { vatNumber: _own, ...withoutOwn } = fullInvoice
      const taxed = await sentInvoice(base, withoutOwn, DISPLAY_NAME, { vatNumber: '50-12345-0-1' })
      const file = save('tax-invoice-settings-vat', (await fetchBytes(taxed.invoice.pdfUrl, taxed.key)).bytes)
      renderPng(file)
      const text = textOf(file)
      expect(text).toContain(`${DISPLAY_NAME} VAT No. 50-12345-0-1`)
      expect(text.indexOf('VAT No. 50-12345-0-1')).toBeLessThan(text.indexOf('BILL TO'))
      expect(text).toContain(`TAX INVOICE ${taxed.invoice.number}`)
      expect(text).toContain(`Tax Invoice ${taxed.invoice.number} · Amounts in Fijian dollars (FJD)`)

      const { taxLabel: _label, taxPercent: _percent, ...untaxed } = withoutOwn
      const plain = await sentInvoice(base, untaxed, DISPLAY_NAME, { vatNumber: '50-12345-0-1' })
      const plainText = textOf(save('invoice-settings-vat-no-tax', (await fetchBytes(plain.invoice.pdfUrl, plain.key)).bytes))
      expect(plainText).toContain(`${DISPLAY_NAME} VAT No. 50-12345-0-1`)
      expect(plainText).toContain(`INVOICE ${plain.invoice.number}`)
      expect(plainText).not.toContain('TAX INVOICE')

      const unregistered = await sentInvoice(base, withoutOwn, DISPLAY_NAME)
      const unregisteredText = textOf(save('invoice-no-vat-number', (await fetchBytes(unregistered.invoice.pdfUrl, unregistered.key)).bytes))
      expect(unregisteredText).not.toContain('TAX INVOICE')
      expect(unregisteredText).not.toContain('VAT No.')
      expect(unregisteredText).toContain('VAT (12.5%)')
    })

    it('says "Tax" with the percent when the tax line has no label, and shows no tax line without tax', async () => {
      const untitled = await sentInvoice(base, { ...fullInvoice, taxLabel: undefined, taxPercent: 12.5, vatNumber: undefined })
      const withoutLabel = textOf(save('tax-unlabelled', (await fetchBytes(untitled.invoice.pdfUrl, untitled.key)).bytes))
      expect(withoutLabel).toContain('Tax (12.5%)')
      expect(withoutLabel).not.toContain('VAT No.')
      const taxFree = await sentInvoice(base, { ...fullInvoice, taxLabel: undefined, taxPercent: undefined })
      const noTax = textOf(save('tax-free', (await fetchBytes(taxFree.invoice.pdfUrl, taxFree.key)).bytes))
      expect(noTax).toContain('Subtotal FJ$2,136.00 Total (FJD) FJ$2,136.00')
      expect(noTax).not.toContain('Tax (')
    })

    it('keeps a tax label that wraps to two lines clear of the total under it', async () => {
      // 37 characters, within the 40 the API takes: Fiji's climate levy, with its percent it takes two lines.
      const levy = await sentInvoice(base, { ...fullInvoice, taxLabel: 'Environment & Climate Adaptation Levy', taxPercent: 12.25 })
      const file = save('tax-label-two-lines', (await fetchBytes(levy.invoice.pdfUrl, levy.key)).bytes)
      const boxes = execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' })
      const box = (word: string): { yMin: number; yMax: number } => {
        const match = new RegExp(`yMin="([\\d.]+)" xMax="[\\d.]+" yMax="([\\d.]+)">${word.replace(/[()%.]/g, '\\$&')}</word>`).exec(boxes)
        expect(match, word).not.toBeNull()
        return { yMin: Number(match![1]), yMax: Number(match![2]) }
      }
      // The total's band (and its rule) starts a few points above the word "Total".
      expect(box('(12.25%)').yMax).toBeLessThan(box('Total').yMin - 6)
      expect(textOf(file)).toContain('Environment & Climate Adaptation Levy (12.25%)')
    })

    it('stamps PAID with the date, VOID, and OVERDUE once the due date has passed in Fiji', async () => {
      const paid = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
      await paid.api.post(`/_sim/invoices/${paid.invoice.id}/pay`, { outcome: 'succeeded' })
      const paidText = textOf(save('paid', (await fetchBytes(paid.invoice.pdfUrl, paid.key)).bytes))
      expect(paidText).toContain('PAID')
      expect(paidText).toContain('Paid on 22 Nov 2026')
      expect(paidText).toContain('Amount paid')

      const voided = await sentInvoice(base, fullInvoice, DISPLAY_NAME)
      await voided.api.post(`/v1/invoices/${voided.invoice.id}/void`, undefined, idempotent())
      const voidText = textOf(save('void', (await fetchBytes(voided.invoice.pdfUrl, voided.key)).bytes))
      expect(voidText).toContain('VOID')
      expect(voidText).toContain('This invoice was voided')

      const late = await sentInvoice(base, { ...fullInvoice, dueDate: '2026-11-23' })
      expect(textOf(save('due', (await fetchBytes(late.invoice.pdfUrl, late.key)).bytes))).not.toContain('OVERDUE')
      // 22:00 on the 22nd in Fiji; two days on it is the 24th there, past the 23rd.
      await late.api.post('/_sim/clock/advance', { ms: 2 * DAY })
      const overdueFile = save('overdue', (await fetchBytes(late.invoice.pdfUrl, late.key)).bytes)
      renderPng(overdueFile)
      const overdueText = textOf(overdueFile)
      expect(overdueText).toContain('OVERDUE')
      expect(overdueText).toContain('Payment is overdue')
    })

    it('flows 50 items over pages, repeating the table header, with every item present', async () => {
      const items = Array.from({ length: 50 }, (_, i) => ({
        description: i % 7 === 3 ? `Item ${i + 1}: ${LONG_DESCRIPTION}` : `Item ${i + 1}: bundle of dalo, ${i + 1} kg`,
        quantity: (i % 4) + 1,
        unitPrice: 150 + i * 10,
      }))
      // The longest display name Settings take, to see the header and footer cope.
      const displayName = 'Nadi Municipal Market Wholesale Produce, Root Crops and Kava Cooperative of Western Viti Levu Ltd'
      expect(displayName.length).toBeLessThanOrEqual(100)
      const { key, invoice } = await sentInvoice(base, { ...fullInvoice, items }, displayName)
      const file = save('fifty-items', (await fetchBytes(invoice.pdfUrl, key)).bytes)
      execFileSync('pdftoppm', ['-png', '-r', '60', file, file.replace(/\.pdf$/, '')])
      const pages = pageCount(file)
      expect(pages).toBeGreaterThan(1)
      for (let page = 1; page <= pages; page++) {
        const text = execFileSync('pdftotext', ['-raw', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' })
        // Every page with item rows opens with the table header.
        if (/Item \d+:/.test(text)) expect(text, `page ${page}`).toMatch(/DESCRIPTION QTY UNIT PRICE AMOUNT\nItem \d+:/)
        expect(text).toContain(`Page ${page} of ${pages}`)
        // The name gives way in the footer; the number and the currency stay (a long name hid both).
        expect(text, `page ${page}`).toContain(`Invoice ${invoice.number}  ·  Amounts in Fijian dollars (FJD)`.replace(/ {2}/g, ' '))
      }
      const text = textOf(file)
      for (const item of items) expect(text).toContain(item.description)
      expect(text).toContain(`Invoice ${invoice.number} (continued)`)
    })
  })
})
