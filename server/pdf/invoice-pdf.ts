import path from 'node:path'
import type { BitMatrix } from 'qrcode'
import { packageRoot } from '../../src/package-root.js'
import type { ServiceContext } from '../context.js'
import type { InvoiceRecord } from '../domain/invoice.js'
import { withoutBidiControls } from '../templates.js'
import { invoiceView, type InvoiceLineView, type InvoiceView } from './invoice-view.js'

/**
 * The invoice PDF: the file `GET /v1/invoices/{id}/pdf`, the hosted page's
 * download and the dashboard's e-mail all carry. A4, one column, the item
 * table flowing over as many pages as it needs with its header repeated.
 *
 * Deterministic: the same invoice gives the same bytes. pdfkit stamps the
 * creation time (and derives the file ID from it), so both dates are pinned
 * to `sentAt`; nothing else in the file comes from the clock or chance.
 * What changes the bytes is what changes the invoice for the customer: paid,
 * void, or the due date passing (the OVERDUE mark).
 */

type Doc = PDFKit.PDFDocument
type Align = 'left' | 'right' | 'center'

const PAGE_WIDTH = 595.28
const PAGE_HEIGHT = 841.89
const MARGIN = 50
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN
const RIGHT = MARGIN + CONTENT_WIDTH
/** Body content stays above this line; the footer sits below it. */
const CONTENT_BOTTOM = PAGE_HEIGHT - 78

const COLOURS = {
  ink: '#17212b',
  muted: '#5b6875',
  rule: '#d5dce3',
  hairline: '#e4e9ee',
  panel: '#f3f6f9',
  brand: '#0b57a4',
  white: '#ffffff',
  testBanner: '#fff3cf',
  testInk: '#5c3d00',
} as const

const STAMPS = {
  paid: { label: 'PAID', ink: '#0f6b3a', fill: '#e3f4ea' },
  void: { label: 'VOID', ink: '#4f5d6b', fill: '#e9edf2' },
  overdue: { label: 'OVERDUE', ink: '#a4262c', fill: '#fbe7e8' },
} as const

/** The table's columns; the description takes what the figures leave. */
const COLUMNS: readonly { key: keyof InvoiceLineView; label: string; width: number; align: Align }[] = [
  { key: 'description', label: 'Description', width: CONTENT_WIDTH - 250, align: 'left' },
  { key: 'quantity', label: 'Qty', width: 50, align: 'right' },
  { key: 'unitPrice', label: 'Unit price', width: 100, align: 'right' },
  { key: 'amount', label: 'Amount', width: 100, align: 'right' },
]
const CELL_PADDING = 8

/**
 * DejaVu Sans rather than pdfkit's built-in Helvetica: Helvetica's encoding
 * has no macrons or most non-Western letters ("Ōtā" would print as junk),
 * and a customer's name must come out as typed. Licence: templates/fonts.
 */
interface Fonts {
  regular: string
  bold: string
}

interface TextStyle {
  font?: keyof Fonts
  size?: number
  color?: string
  width?: number
  align?: Align
  characterSpacing?: number
  link?: string
  /** Cuts the text to this height with an ellipsis. */
  maxHeight?: number
}

export async function renderInvoicePdf(ctx: ServiceContext, invoice: InvoiceRecord): Promise<Buffer> {
  const view = invoiceView(ctx, invoice)
  // Loaded on first use: most simulator runs never draw a PDF.
  const [{ default: PDFDocument }, { default: qrcode }] = await Promise.all([import('pdfkit'), import('qrcode')])
  const fontDir = path.join(packageRoot(), 'templates', 'fonts')
  const fonts: Fonts = { regular: path.join(fontDir, 'DejaVuSans.ttf'), bold: path.join(fontDir, 'DejaVuSans-Bold.ttf') }
  const sentAt = new Date(invoice.sentAt!)
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    font: fonts.regular,
    lang: 'en',
    displayTitle: true,
    info: {
      // A viewer shows these in its title bar, which no markup can isolate text in.
      Title: withoutBidiControls(`${view.title} ${view.number}`),
      Author: withoutBidiControls(view.displayName),
      Subject: withoutBidiControls(`${view.title} ${view.number} for ${view.customerName}`),
      Creator: 'Bula',
      Producer: 'Bula',
      CreationDate: sentAt,
      ModDate: sentAt,
    },
  })
  const bytes = collect(doc)
  const qr = qrcode.create(view.payUrl, { errorCorrectionLevel: 'M' }).modules
  new InvoiceLayout(doc, fonts, view).draw(qr)
  doc.end()
  return bytes
}

function collect(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    doc.on('data', (chunk: Buffer) => chunks.push(chunk))
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })
}

/** Draws one invoice top to bottom; `y` is where the next block starts. */
class InvoiceLayout {
  private y = MARGIN

  constructor(
    private readonly doc: Doc,
    private readonly fonts: Fonts,
    private readonly view: InvoiceView,
  ) {}

  draw(qr: BitMatrix): void {
    this.header()
    this.parties()
    this.itemTable()
    this.totals()
    this.payment(qr)
    this.pageDecorations()
  }

  /**
   * Writes text at a point and returns its height. pdfkit lays text out left to right without
   * the bidi algorithm, and DejaVu Sans draws the isolates as boxes: bidi controls are dropped.
   */
  private text(value: string, x: number, y: number, style: TextStyle = {}): number {
    const options = this.apply(style)
    const shown = withoutBidiControls(value)
    this.doc.text(shown, x, y, options)
    return this.doc.heightOfString(shown, options)
  }

  private measure(value: string, style: TextStyle): { width: number; height: number } {
    const options = this.apply(style)
    const shown = withoutBidiControls(value)
    return { width: this.doc.widthOfString(shown, options), height: this.doc.heightOfString(shown, options) }
  }

  /** `value` whole if it fits in `width` on one line, else as many of its first characters as fit, then "…". */
  private shortened(value: string, width: number, style: TextStyle): string {
    if (this.measure(value, style).width <= width) return value
    const characters = Array.from(value)
    let fits = 0
    let tooMany = characters.length
    while (tooMany - fits > 1) {
      const middle = Math.floor((fits + tooMany) / 2)
      if (this.measure(`${characters.slice(0, middle).join('')}…`, style).width <= width) fits = middle
      else tooMany = middle
    }
    return `${characters.slice(0, fits).join('').trimEnd()}…`
  }

  private apply(style: TextStyle): PDFKit.Mixins.TextOptions {
    this.doc
      .font(this.fonts[style.font ?? 'regular'])
      .fontSize(style.size ?? 9.5)
      .fillColor(style.color ?? COLOURS.ink)
    return {
      width: style.width,
      align: style.align ?? 'left',
      characterSpacing: style.characterSpacing ?? 0,
      link: style.link,
      lineBreak: style.width !== undefined,
      height: style.maxHeight,
      ellipsis: style.maxHeight !== undefined,
    }
  }

  private rule(y: number, color: string = COLOURS.rule, x1 = MARGIN, x2 = RIGHT, width = 0.75): void {
    this.doc.moveTo(x1, y).lineTo(x2, y).lineWidth(width).strokeColor(color).stroke()
  }

  /** The status mark, when there is one to show: paid, void, or overdue. */
  private stamp(): (typeof STAMPS)[keyof typeof STAMPS] | null {
    if (this.view.status === 'paid' || this.view.status === 'void') return STAMPS[this.view.status]
    return this.view.overdue ? STAMPS.overdue : null
  }

  private header(): void {
    const { view } = this
    const top = this.y
    const titleWidth = 200
    const nameWidth = CONTENT_WIDTH - titleWidth - 20
    // A long name (Settings allow 100 characters) steps down a size rather than fill the page's top.
    const nameStyle = (size: number): TextStyle => ({ font: 'bold', size, width: nameWidth })
    const nameSize = this.measure(view.displayName, nameStyle(18)).height > 2.5 * 18 ? 14 : 18
    let left = top + this.text(view.displayName, MARGIN, top, nameStyle(nameSize))
    if (view.sellerVatNumber !== null) {
      left += 4 + this.text(`VAT No. ${view.sellerVatNumber}`, MARGIN, left + 4, { size: 9, color: COLOURS.muted, width: nameWidth })
    }
    const titleX = RIGHT - titleWidth
    // "TAX INVOICE" at 22 pt would not fit the column with its spacing; it steps down as the long name does.
    const titleSize = view.title.length > 10 ? 18 : 22
    let right = top + this.text(view.title.toUpperCase(), titleX, top - 1, { font: 'bold', size: titleSize, color: COLOURS.brand, width: titleWidth, align: 'right', characterSpacing: 2 })
    right += 2 + this.text(view.number, titleX, right + 2, { size: 11, width: titleWidth, align: 'right' })
    const stamp = this.stamp()
    if (stamp) {
      const style: TextStyle = { font: 'bold', size: 8.5, color: stamp.ink, characterSpacing: 1.2 }
      const { width } = this.measure(stamp.label, style)
      const pill = { width: width + 18, height: 19, y: right + 8 }
      this.doc.roundedRect(RIGHT - pill.width, pill.y, pill.width, pill.height, 9.5).lineWidth(1).fillAndStroke(stamp.fill, stamp.ink)
      this.text(stamp.label, RIGHT - pill.width + 9, pill.y + 5, style)
      right = pill.y + pill.height
    }
    this.y = Math.max(left, right) + 18
    this.rule(this.y, COLOURS.rule, MARGIN, RIGHT, 1)
    this.y += 20
  }

  private parties(): void {
    const { view } = this
    const top = this.y
    const billToWidth = 240
    let left = top + this.text('BILL TO', MARGIN, top, { font: 'bold', size: 8, color: COLOURS.muted, characterSpacing: 1 })
    left += 5 + this.text(view.customerName, MARGIN, left + 5, { font: 'bold', size: 11, width: billToWidth })
    if (view.customerEmail !== null) {
      left += 2 + this.text(view.customerEmail, MARGIN, left + 2, { size: 9.5, color: COLOURS.muted, width: billToWidth })
    }

    const rows: [string, string][] = [
      ['Invoice number', view.number],
      ['Issue date', view.issueDate],
      ['Due date', view.dueDate],
    ]
    if (view.paidDate !== null) rows.push(['Paid on', view.paidDate])
    if (view.voidedDate !== null) rows.push(['Voided on', view.voidedDate])
    const detailsWidth = 220
    const x = RIGHT - detailsWidth
    let right = top
    for (const [label, value] of rows) {
      this.text(label, x, right, { size: 9, color: COLOURS.muted })
      this.text(value, x, right, { size: 9.5, width: detailsWidth, align: 'right' })
      right += 16
    }
    right += 4
    this.rule(right, COLOURS.hairline, x, RIGHT)
    right += 8
    const amountLabel = view.status === 'paid' ? 'Amount paid' : view.status === 'void' ? 'Total' : 'Amount due'
    this.text(amountLabel, x, right + 1, { font: 'bold', size: 10 })
    right += this.text(view.total, x, right, { font: 'bold', size: 11.5, width: detailsWidth, align: 'right' })
    this.y = Math.max(left, right) + 30
  }

  /** A page after the first: who and which invoice, so a loose page is still recognisable. */
  private continuationPage(): void {
    this.doc.addPage()
    this.y = MARGIN
    const nameHeight = this.text(this.view.displayName, MARGIN, this.y, { font: 'bold', size: 10, width: CONTENT_WIDTH - 200 })
    this.text(`${this.view.title} ${this.view.number} (continued)`, RIGHT - 180, this.y, { size: 9, color: COLOURS.muted, width: 180, align: 'right' })
    this.y += nameHeight + 16
  }

  private tableHeader(): void {
    const height = 24
    this.doc.rect(MARGIN, this.y, CONTENT_WIDTH, height).fill(COLOURS.panel)
    let x = MARGIN
    for (const column of COLUMNS) {
      this.text(column.label.toUpperCase(), x + CELL_PADDING, this.y + 8.5, {
        font: 'bold',
        size: 7.5,
        color: COLOURS.muted,
        width: column.width - 2 * CELL_PADDING,
        align: column.align,
        characterSpacing: 0.6,
      })
      x += column.width
    }
    this.y += height
  }

  private itemTable(): void {
    this.tableHeader()
    const cell = (column: (typeof COLUMNS)[number]): TextStyle => ({ width: column.width - 2 * CELL_PADDING, align: column.align })
    for (const line of this.view.lines) {
      const height = Math.max(...COLUMNS.map((column) => this.measure(line[column.key], cell(column)).height)) + 16
      if (this.y + height > CONTENT_BOTTOM) {
        this.continuationPage()
        this.tableHeader()
      }
      let x = MARGIN
      for (const column of COLUMNS) {
        this.text(line[column.key], x + CELL_PADDING, this.y + 8, cell(column))
        x += column.width
      }
      this.y += height
      this.rule(this.y, COLOURS.hairline, MARGIN, RIGHT, 0.5)
    }
  }

  private totals(): void {
    const { view } = this
    const width = 250
    const x = RIGHT - width
    const inner = width - 2 * CELL_PADDING
    const labelStyle: TextStyle = { color: COLOURS.muted, width: inner - 100 }
    // A tax label of up to 40 characters plus its percent ("Environment & Climate
    // Adaptation Levy (6%)") wraps, so each row is as tall as its label.
    const rows = [['Subtotal', view.subtotal], ...(view.taxLine ? [[view.taxLine.label, view.taxLine.amount]] : [])].map(([label, value]) => ({
      label: label!,
      value: value!,
      height: Math.max(20, this.measure(label!, labelStyle).height + 8),
    }))
    const totalHeight = 30
    // The totals are never split from each other.
    if (this.y + 12 + rows.reduce((sum, row) => sum + row.height, 0) + totalHeight > CONTENT_BOTTOM) this.continuationPage()
    this.y += 10
    for (const { label, value, height } of rows) {
      this.text(label, x + CELL_PADDING, this.y + 5, labelStyle)
      this.text(value, x + CELL_PADDING, this.y + 5, { width: inner, align: 'right' })
      this.y += height
    }
    this.y += 4
    this.doc.rect(x, this.y, width, totalHeight).fill(COLOURS.panel)
    this.rule(this.y, COLOURS.ink, x, RIGHT, 1)
    this.text('Total (FJD)', x + CELL_PADDING, this.y + 9, { font: 'bold', size: 11 })
    this.text(view.total, x + CELL_PADDING, this.y + 9, { font: 'bold', size: 11, width: inner, align: 'right' })
    this.y += totalHeight
  }

  /** How to pay: the hosted page's address as text and as a QR code. */
  private payment(qr: BitMatrix): void {
    const { view } = this
    const padding = 14
    const qrSize = 92
    const height = qrSize + 2 * padding
    if (this.y + 28 + height > CONTENT_BOTTOM) this.continuationPage()
    else this.y += 28
    const top = this.y
    this.doc.roundedRect(MARGIN, top, CONTENT_WIDTH, height, 6).lineWidth(0.75).fillAndStroke(COLOURS.panel, COLOURS.rule)
    this.qrCode(qr, MARGIN + padding, top + padding, qrSize)

    const x = MARGIN + padding + qrSize + 18
    const width = RIGHT - padding - x
    const [heading, message] = this.paymentWords()
    let y = top + padding + 4
    y += 6 + this.text(heading, x, y, { font: 'bold', size: 12, width })
    y += 8 + this.text(message, x, y + 6, { size: 9.5, color: COLOURS.muted, width })
    this.text(view.payUrl, x, y + 8, { size: 9.5, color: COLOURS.brand, width, link: view.payUrl })
    this.y = top + height
  }

  /** The heading, and lines short enough not to break inside a Provider's name. */
  private paymentWords(): [string, string] {
    const { view } = this
    switch (view.status) {
      case 'paid':
        return ['Paid. Thank you', `Paid in full on ${view.paidDate}.\nThe invoice stays online at:`]
      case 'void':
        return ['This invoice was voided', `Voided on ${view.voidedDate}: it can no longer be paid.\nThe invoice stays online at:`]
      case 'sent':
        return view.overdue
          ? ['Payment is overdue', `This invoice was due on ${view.dueDate}. You can still pay online.\nScan the code, or open this link:`]
          : ['Pay online', `Please pay by ${view.dueDate} with card, M-PAiSA or MyCash.\nScan the code, or open this link:`]
    }
  }

  /** Vector modules (crisp at any zoom), one rectangle per dark run of a row, on a white quiet zone. */
  private qrCode(qr: BitMatrix, x: number, y: number, size: number): void {
    const quietModules = 3
    const module = size / (qr.size + 2 * quietModules)
    this.doc.rect(x, y, size, size).fill(COLOURS.white)
    const origin = { x: x + quietModules * module, y: y + quietModules * module }
    for (let row = 0; row < qr.size; row++) {
      let runStart = -1
      for (let col = 0; col <= qr.size; col++) {
        const dark = col < qr.size && qr.get(row, col) === 1
        if (dark && runStart < 0) runStart = col
        if (!dark && runStart >= 0) {
          this.doc.rect(origin.x + runStart * module, origin.y + row * module, (col - runStart) * module, module)
          runStart = -1
        }
      }
    }
    this.doc.fill(COLOURS.ink)
  }

  /** Drawn once every page exists: the test-mode banner and the footer with "Page n of N". */
  private pageDecorations(): void {
    const { view, doc } = this
    const { start, count } = doc.bufferedPageRange()
    for (let index = start; index < start + count; index++) {
      doc.switchToPage(index)
      // The footer sits in the bottom margin, where pdfkit would otherwise start a new page.
      doc.page.margins.bottom = 0
      if (view.mode === 'test') {
        doc.rect(0, 0, PAGE_WIDTH, 22).fill(COLOURS.testBanner)
        this.text('TEST MODE  ·  Issued in test mode: no real money is due.', 0, 7, {
          font: 'bold',
          size: 8,
          color: COLOURS.testInk,
          width: PAGE_WIDTH,
          align: 'center',
        })
      }
      const footerY = PAGE_HEIGHT - 58
      this.rule(footerY, COLOURS.rule)
      const footer: TextStyle = { size: 8, color: COLOURS.muted, width: CONTENT_WIDTH - 90, maxHeight: 10 }
      const rest = `  ·  ${view.title} ${view.number}  ·  Amounts in Fijian dollars (FJD)`
      // The name gives way, not the number or the currency: cut to the line as a whole, a long name hid both.
      const name = this.shortened(view.displayName, footer.width! - this.measure(rest, footer).width, footer)
      this.text(`${name}${rest}`, MARGIN, footerY + 10, footer)
      this.text(`Page ${index - start + 1} of ${count}`, RIGHT - 80, footerY + 10, { size: 8, color: COLOURS.muted, width: 80, align: 'right' })
    }
  }
}
