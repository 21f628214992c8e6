import { apiError } from '../../domain/error-catalog.js'
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express'
import { ApiError } from '../../../src/errors.js'
import { runCommitted } from '../handle.js'
import type { ServiceContext } from '../../context.js'
import type { InvoiceRecord } from '../../domain/invoice.js'
import { renderInvoicePdf } from '../../pdf/invoice-pdf.js'
import { invoiceView, type InvoiceView } from '../../pdf/invoice-view.js'
import { checkoutForInvoice, invoiceForCustomer } from '../../services/invoices.js'
import { html, safe, userText, withoutBidiControls, type SafeHtml, type TemplateValue } from '../../templates.js'
// The checkout page's headers: every form here posts to this origin, and its redirect stays on it.
import { initialOf, securityHeaders, undecodablePathAsNotFound } from './checkout.js'

/**
 * The hosted invoice (docs/simulator.md, "Payments"): `GET /i/{token}` is the Invoice's `url`,
 * where the customer reads it, downloads the PDF and pays. Server-rendered
 * HTML without JavaScript, every merchant and customer string escaped by the
 * template engine. It wears the hosted checkout's look: its stylesheet and
 * partials (test banner, merchant header, state, action link) are reused,
 * and invoice.css adds only the invoice's own parts.
 */

/** The checkout router's stylesheet; `/pay` is fixed: a session's hostedUrl is `{base}/pay/{id}` (docs/hosted-checkout.md). */
const CHECKOUT_STYLESHEET = '/pay/assets/checkout.css'

interface Page {
  status: number
  html: string
}

/** Renders the pages of one mounted router; `base` is where it is mounted (`/i`). */
class InvoicePages {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly base: string,
  ) {}

  invoicePath = (invoice: InvoiceRecord): string => `${this.base}/${encodeURIComponent(invoice.pageToken)}`

  private render(name: string, values: Record<string, TemplateValue>): SafeHtml {
    return safe(this.ctx.templates.render(name, values))
  }

  private join(parts: readonly SafeHtml[]): SafeHtml {
    return safe(parts.map((part) => part.html).join('\n'))
  }

  private layout(options: { title: string; view?: InvoiceView; content: SafeHtml }): string {
    const { view } = options
    // The checkout page's layout and styles, plus the invoice's own.
    return this.ctx.templates.render('checkout/layout.html', {
      // A <title> holds no markup to isolate the merchant's and customer's text in: their bidi controls go instead.
      title: withoutBidiControls(options.title),
      stylesheets: this.join(
        [CHECKOUT_STYLESHEET, `${this.base}/assets/invoice.css`].map((href) => this.render('checkout/stylesheet.html', { href })),
      ),
      pageClass: 'page page-invoice',
      hostedBy: 'Invoice hosted by Bula.',
      banner: view?.mode === 'test' ? this.render('checkout/test-banner.html', {}) : safe(''),
      merchantHeader:
        view === undefined
          ? safe('')
          : this.render('checkout/merchant-header.html', {
              displayName: userText(view.displayName),
              initial: initialOf(view.displayName),
              // The seller's VAT number belongs with the seller's name, as on the PDF.
              detail: view.sellerVatNumber === null ? safe('') : this.render('invoice/seller-vat.html', { vatNumber: userText(view.sellerVatNumber) }),
            }),
      content: options.content,
    })
  }

  /** A row of the customer's details; `value` is the customer's own text. */
  private detailRow(label: string, value: string | null): SafeHtml {
    return value === null ? safe('') : this.render('invoice/detail-row.html', { label, value: userText(value) })
  }

  /** The badge beside the number and the note under the amount, from the status and the due date. */
  private status(view: InvoiceView): { badge: SafeHtml; note: SafeHtml; amountLabel: string } {
    const badge = (tone: string, label: string): SafeHtml => this.render('invoice/status-badge.html', { tone, label })
    const note = (tone: string, heading: string, message: SafeHtml): SafeHtml =>
      this.render('invoice/status-note.html', { tone, heading, message })
    switch (view.status) {
      case 'paid':
        return {
          badge: badge('ok', 'Paid'),
          note: note('ok', `Paid on ${view.paidDate}`, html`Thank you. ${userText(view.displayName)} has received your payment.`),
          amountLabel: 'Amount paid',
        }
      case 'void':
        return {
          badge: badge('quiet', 'Void'),
          note: note('quiet', 'This invoice was voided', html`${userText(view.displayName)} voided it on ${view.voidedDate!}. It can no longer be paid.`),
          amountLabel: 'Total',
        }
      case 'sent':
        return {
          badge: view.overdue ? badge('bad', 'Overdue') : safe(''),
          note: safe(''),
          amountLabel: 'Amount due',
        }
    }
  }

  /** Under the amount while it is still to be paid; a paid or void invoice's note says what happened instead. */
  private dueLine(view: InvoiceView): SafeHtml {
    return view.overdue
      ? this.render('invoice/due-line.html', { text: `Overdue: it was due on ${view.dueDate}`, overdueClass: ' is-overdue' })
      : this.render('invoice/due-line.html', { text: `Due ${view.dueDate}`, overdueClass: '' })
  }

  /**
   * The checkout sends a declined customer back here with `session_id` (its cancelUrl): while the invoice is
   * still to be paid, the page says so in the checkout's words, or the customer would see no sign of the decline.
   * Only for the invoice's latest session: once another payment is under way, the old decline is not the news.
   */
  private declinedNote(view: InvoiceView, invoice: InvoiceRecord, returnedFrom: string | undefined): SafeHtml | undefined {
    if (view.status !== 'sent' || returnedFrom === undefined || invoice.checkoutSessionIds.at(-1) !== returnedFrom) return undefined
    if (this.ctx.store.get('checkoutSessions', returnedFrom)?.status !== 'failed') return undefined
    return this.render('invoice/status-note.html', {
      tone: 'bad',
      heading: 'Payment declined',
      message: html`Your payment to ${userText(view.displayName)} did not go through and no money was taken. You can try again.`,
    })
  }

  /** `returnedFrom` is the `session_id` the checkout appends when it sends the customer back here. */
  invoicePage(invoice: InvoiceRecord, returnedFrom?: string): Page {
    const view = invoiceView(this.ctx, invoice)
    const status = this.status(view)
    const path = this.invoicePath(invoice)
    const download = this.render('checkout/action-link.html', { href: `${path}/pdf`, label: 'Download PDF', style: 'secondary' })
    const actions =
      view.status === 'sent' ? [this.render('invoice/pay-form.html', { action: `${path}/pay`, total: view.total }), download] : [download]
    const content = this.render('invoice/invoice.html', {
      title: view.title,
      number: userText(view.number),
      statusBadge: status.badge,
      amountLabel: status.amountLabel,
      total: view.total,
      dueLine: view.status === 'sent' ? this.dueLine(view) : safe(''),
      statusNote: this.declinedNote(view, invoice, returnedFrom) ?? status.note,
      actions: this.join(actions),
      customerName: userText(view.customerName),
      customerEmailRow: this.detailRow('E-mail', view.customerEmail),
      issueDate: view.issueDate,
      dueDate: view.dueDate,
      itemRows: this.join(view.lines.map((line) => this.render('invoice/item-row.html', { ...line, description: userText(line.description) }))),
      subtotal: view.subtotal,
      taxRow:
        view.taxLine === null
          ? safe('')
          : this.render('invoice/detail-row.html', { label: html`${userText(view.taxLine.name)} (${view.taxLine.rate})`, value: view.taxLine.amount }),
    })
    return { status: 200, html: this.layout({ title: `${view.title} ${view.number} from ${view.displayName}`, view, content }) }
  }

  /**
   * A customer-facing page for any failure: the right status, plain words, never a stack trace.
   * `token` is the invoice the request was about: a refused Pay leads back to it, as the checkout's error page does.
   */
  errorPage(error: unknown, token?: string): Page {
    let status = 500
    let heading = 'Something went wrong'
    let message = 'The invoice page had a problem. No money was taken. Please try again in a moment.'
    if (error instanceof ApiError && error.code === 'not_found') {
      status = 404
      heading = 'Invoice not found'
      message = 'This link does not match any invoice. Check the link, or ask the business that sent it for a new one.'
    } else if (error instanceof ApiError && error.code === 'live_mode_unavailable') {
      status = error.status
      heading = 'Payments are unavailable'
      message = 'This business cannot take payments right now. No money was taken. Please try again later.'
    } else if (error instanceof ApiError && error.code === 'storage_unavailable') {
      status = 503
      heading = 'Payment not started'
      message = 'The payment could not be recorded. No money was taken. Please go back and try again in a moment.'
    } else if (error instanceof ApiError) {
      status = error.status
      heading = 'This invoice cannot be paid now'
      message = 'No money was taken. Please go back and try again.'
    }
    const tone = status >= 500 ? 'bad' : 'quiet'
    // An unknown invoice has no page to go back to.
    const actions =
      token === undefined || status === 404
        ? safe('')
        : this.render('checkout/action-link.html', { href: `${this.base}/${encodeURIComponent(token)}`, label: 'Back to the invoice', style: 'primary' })
    const content = this.render('checkout/state.html', { tone, icon: '!', heading, message, details: safe(''), actions })
    return { status, html: this.layout({ title: heading, content }) }
  }
}

type Outcome = { page: Page } | { redirect: string } | { pdf: Buffer; filename: string }

/** Wraps a page route: runs and commits it as every route is (runCommitted), and turns any error into an HTML page. */
function pageRoute(ctx: ServiceContext, route: (req: Request, pages: InvoicePages) => Outcome | Promise<Outcome>): RequestHandler {
  return async (req: Request, res: Response) => {
    const pages = new InvoicePages(ctx, req.baseUrl)
    try {
      const outcome = await runCommitted(ctx, req, () => route(req, pages))
      if ('redirect' in outcome) {
        res.redirect(303, outcome.redirect)
      } else if ('pdf' in outcome) {
        // A real PDF type, so a browser that opens it shows it; the bytes are the API's octet-stream download.
        res.type('application/pdf').setHeader('Content-Disposition', `attachment; filename="${outcome.filename}"`)
        res.send(outcome.pdf)
      } else {
        res.status(outcome.page.status).type('html').send(outcome.page.html)
      }
    } catch (error) {
      if (!(error instanceof ApiError)) ctx.log(`invoice page error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      const page = pages.errorPage(error, typeof req.params.token === 'string' ? req.params.token : undefined)
      res.status(page.status).type('html').send(page.html)
    }
  }
}

export function invoicePagesRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(securityHeaders)
  router.get('/assets/invoice.css', (_req, res) => {
    res.type('css').send(ctx.templates.renderText('invoice/invoice.css', {}))
  })
  router.get(
    '/:token',
    pageRoute(ctx, (req, pages) => {
      const { invoice } = invoiceForCustomer(ctx, String(req.params.token))
      const sessionId = typeof req.query.session_id === 'string' ? req.query.session_id : undefined
      return { page: pages.invoicePage(invoice, sessionId) }
    }),
  )
  router.post(
    '/:token/pay',
    pageRoute(ctx, (req, pages) => {
      const { invoice } = invoiceForCustomer(ctx, String(req.params.token))
      // Paid or voided since the page was shown: the page itself says so.
      if (invoice.status !== 'sent') return { redirect: pages.invoicePath(invoice) }
      const session = checkoutForInvoice(ctx, invoice)
      // A path, not hostedUrl: the customer stays on the host they came by, which the CSP's form-action allows.
      return { redirect: `/pay/${encodeURIComponent(session.id)}` }
    }),
  )
  router.get(
    '/:token/pdf',
    pageRoute(ctx, async (req) => {
      const { invoice } = invoiceForCustomer(ctx, String(req.params.token))
      return { pdf: await renderInvoicePdf(ctx, invoice), filename: `${invoice.number}.pdf` }
    }),
  )
  router.use(
    pageRoute(ctx, () => {
      throw apiError('not_found', 'No such page.')
    }),
  )
  // Errors raised before a route runs (a path that does not percent-decode): an HTML page, not the API's JSON.
  const earlyErrors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    const shown = undecodablePathAsNotFound(error)
    if (!(shown instanceof ApiError) || res.headersSent) {
      next(error)
      return
    }
    const page = new InvoicePages(ctx, req.baseUrl).errorPage(shown)
    res.status(page.status).type('html').send(page.html)
  }
  router.use(earlyErrors)
  return router
}
