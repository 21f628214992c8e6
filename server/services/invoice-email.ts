import { invalidRequest } from '../../src/errors.js'
import type { Email } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { invoicePageUrl, totalsOf } from '../domain/invoice.js'

import { renderInvoicePdf } from '../pdf/invoice-pdf.js'
import { ownInvoice } from './invoices.js'
import { sendEmail } from './outbox.js'
import { formatFjd } from '../../src/money.js'
import { formatDay } from '../../src/time.js'

/**
 * "E-mail the invoice" from the dashboard (the API itself never e-mails):
 * the pay link and the PDF, branded with the display name, into the outbox.
 */
export async function emailInvoice(ctx: ServiceContext, caller: Caller, id: string): Promise<Email> {
  const invoice = ownInvoice(ctx, caller, id)
  if (invoice.status === 'draft') throw invalidRequest('A draft cannot be e-mailed; send it first.')
  if (invoice.customerEmail === null) throw invalidRequest('The Invoice has no customerEmail to send it to.', 'customerEmail')
  const pdf = await renderInvoicePdf(ctx, invoice)
  const merchant = ctx.store.get('merchants', invoice.merchantId)!
  const values = {
    displayName: merchant.settings.displayName,
    customerName: invoice.customerName,
    number: invoice.number ?? '',
    total: formatFjd(totalsOf(invoice).total),
    dueDate: formatDay(invoice.dueDate),
    url: invoicePageUrl(invoice, ctx.urls.base),
  }
  const { merchantId: _m, ...email } = sendEmail(ctx, invoice.merchantId, invoice.mode, {
    kind: 'invoice',
    to: invoice.customerEmail,
    subject: `Invoice ${values.number} from ${values.displayName}`,
    relatedId: invoice.id,
    html: ctx.templates.render('emails/invoice.html', values),
    text: ctx.templates.renderText('emails/invoice.txt', values),
    attachments: [{ filename: `${values.number}.pdf`, contentType: 'application/pdf', bytes: pdf.length, contentBase64: pdf.toString('base64') }],
  })
  return email
}
