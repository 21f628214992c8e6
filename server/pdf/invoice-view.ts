import type { InvoiceStatus, Mode } from '../../src/schemas/index.js'
import type { ServiceContext } from '../context.js'
import { documentTitle, invoicePageUrl, isOverdue, sellerVatNumber, taxLineLabel, totalsOf, type InvoiceRecord } from '../domain/invoice.js'
import { formatFjd } from '../../src/money.js'
import { formatDay, formatFijiDay } from '../../src/time.js'

/**
 * What the customer reads on an invoice, as display strings: the one source
 * for the PDF, the hosted page and the invoice e-mail, so all say the same thing.
 */
export interface InvoiceView {
  /** "Tax Invoice" from a VAT-registered seller charging a tax line, else "Invoice". */
  title: string
  displayName: string
  /** The seller's VAT number, shown under the seller's name: the invoice's own, else Settings'. */
  sellerVatNumber: string | null
  /** Always set: only sent invoices are shown to customers. */
  number: string
  mode: Mode
  status: Exclude<InvoiceStatus, 'draft'>
  overdue: boolean
  customerName: string
  customerEmail: string | null
  issueDate: string
  dueDate: string
  paidDate: string | null
  voidedDate: string | null
  lines: InvoiceLineView[]
  subtotal: string
  /**
   * Null when the invoice has no tax line. `label` is "VAT (12.5%)": the merchant's `name` ("VAT", or "Tax"
   * without one) and the `rate`; the hosted page shows the two apart, to isolate the merchant's text.
   */
  taxLine: { label: string; name: string; rate: string; amount: string } | null
  total: string
  payUrl: string
}

export interface InvoiceLineView {
  description: string
  quantity: string
  unitPrice: string
  amount: string
}

/** `15`, `12.5`, `8.25`: the percent as entered (at most 2 decimal places), without float noise. */
const formatPercent = (percent: number): string => String(Number(percent.toFixed(2)))

/** "VAT (12.5%)", or "Tax (12.5%)" without a label; a 0 % line shows only when it is labelled. */
function taxLabelOf(invoice: InvoiceRecord): { label: string; name: string; rate: string } | null {
  const name = taxLineLabel(invoice.taxLabel, invoice.taxPercent)
  const rate = `${formatPercent(invoice.taxPercent)}%`
  return name === null ? null : { label: `${name} (${rate})`, name, rate }
}

export function invoiceView(ctx: ServiceContext, invoice: InvoiceRecord): InvoiceView {
  if (invoice.status === 'draft' || invoice.number === null || invoice.sentAt === null) {
    throw new Error(`invoice ${invoice.invoiceId} is a draft; customers only see sent invoices`)
  }
  const merchant = ctx.store.get('merchants', invoice.merchantId)!
  const { subtotal, tax, total } = totalsOf(invoice)
  const taxLabel = taxLabelOf(invoice)
  return {
    title: documentTitle(invoice, merchant.settings),
    displayName: merchant.settings.displayName,
    sellerVatNumber: sellerVatNumber(invoice, merchant.settings),
    number: invoice.number,
    mode: invoice.mode,
    status: invoice.status,
    overdue: isOverdue(invoice, ctx.clock.now(invoice.merchantId)),
    customerName: invoice.customerName,
    customerEmail: invoice.customerEmail,
    issueDate: formatFijiDay(invoice.sentAt),
    dueDate: formatDay(invoice.dueDate),
    paidDate: invoice.paidAt === null ? null : formatFijiDay(invoice.paidAt),
    voidedDate: invoice.voidedAt === null ? null : formatFijiDay(invoice.voidedAt),
    lines: invoice.items.map((item) => ({
      description: item.description,
      quantity: item.quantity.toLocaleString('en-US'),
      unitPrice: formatFjd(item.unitPrice),
      amount: formatFjd(item.quantity * item.unitPrice),
    })),
    subtotal: formatFjd(subtotal),
    taxLine: taxLabel === null ? null : { ...taxLabel, amount: formatFjd(tax) },
    total: formatFjd(total),
    payUrl: invoicePageUrl(invoice, ctx.urls.base),
  }
}
