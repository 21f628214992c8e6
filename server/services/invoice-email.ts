import { invalidRequest } from '../../src/errors.js'
import type { Email } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { renderInvoicePdf } from '../pdf/invoice-pdf.js'
import { invoiceView } from '../pdf/invoice-view.js'
import { safe, withoutBidiControls } from '../templates.js'
import { ownInvoice } from './invoices.js'
import { sendEmail } from './outbox.js'

/**
 * "E-mail the invoice" from the dashboard (the API itself never e-mails):
 * the pay link and the PDF, branded with the display name and the seller's
 * VAT number, into the outbox.
 */
export async function emailInvoice(ctx: ServiceContext, caller: Caller, id: string): Promise<Email> {
  const invoice = ownInvoice(ctx, caller, id)
  if (invoice.status === 'draft') throw invalidRequest('A draft cannot be e-mailed; send it first.')
  // The e-mail asks the customer to pay: a paid or void Invoice has nothing left to pay (the dashboard offers no button either).
  if (invoice.status !== 'sent') throw invalidRequest(`A ${invoice.status} Invoice is not e-mailed: the e-mail asks the customer to pay, and nothing is left to pay.`)
  // Only a draft takes a new customerEmail, and this Invoice is past that: say what is left to do.
  if (invoice.customerEmail === null) {
    throw invalidRequest(
      'The Invoice has no customerEmail to send it to, and a sent Invoice cannot be edited: share its url with the customer, ' +
        'or void it and create another with a customerEmail (`bula invoices create --email`).',
      'customerEmail',
    )
  }
  const pdf = await renderInvoicePdf(ctx, invoice)
  // The same view the PDF and the hosted page are drawn from: title, seller's VAT number, dates and money agree.
  const view = invoiceView(ctx, invoice)
  // As in the PDF: a subject and a text part have no markup to isolate a name with, so its bidi controls are dropped (docs/security.md).
  const displayName = withoutBidiControls(view.displayName)
  const values = {
    title: view.title,
    titleInText: view.title.toLowerCase(),
    displayName,
    customerName: withoutBidiControls(view.customerName),
    number: view.number,
    total: view.total,
    dueDate: view.dueDate,
    url: view.payUrl,
  }
  const { merchantId: _m, ...email } = sendEmail(ctx, invoice.merchantId, invoice.mode, {
    kind: 'invoice',
    to: invoice.customerEmail,
    subject: `${view.title} ${view.number} from ${displayName}`,
    relatedId: invoice.id,
    html: ctx.templates.render('emails/invoice.html', {
      ...values,
      sellerVat: view.sellerVatNumber === null ? safe('') : safe(ctx.templates.render('emails/invoice-seller-vat.html', { vatNumber: withoutBidiControls(view.sellerVatNumber) })),
    }),
    text: ctx.templates.renderText('emails/invoice.txt', {
      ...values,
      sellerVatLine: view.sellerVatNumber === null ? '' : `VAT No. ${withoutBidiControls(view.sellerVatNumber)}\n`,
    }),
    attachments: [{ filename: `${view.number}.pdf`, contentType: 'application/pdf', bytes: pdf.length, contentBase64: pdf.toString('base64') }],
  })
  return email
}
