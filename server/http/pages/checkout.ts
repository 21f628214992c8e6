import { apiError } from '../../domain/error-catalog.js'
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express'
import { z } from 'zod'
import { ApiError, invalidRequest } from '../../../src/errors.js'
import { providerSchema, type CheckoutSession, type Provider } from '../../../src/schemas/index.js'
import { clientErrorOf } from '../errors.js'
import { runCommitted } from '../handle.js'
import { formBody } from '../json-body.js'
import type { ServiceContext } from '../../context.js'
import {
  PROVIDER_NAMES,
  isExpired,
  paymentStarted,
  withSessionId,
  type CheckoutSessionRecord,
} from '../../domain/checkout-session.js'
import type { MerchantRecord } from '../../domain/merchant.js'

import { paySession, redirectUrls, sessionForCustomer } from '../../services/checkout-sessions.js'
import { html, safe, userText, withoutBidiControls, type SafeHtml, type TemplateValue } from '../../templates.js'
import { htmlPageHeaders } from './headers.js'
import { formatFjd } from '../../../src/money.js'

/**
 * The hosted checkout (docs/simulator.md, "Payments"): `GET /pay/{id}` is the page the
 * merchant redirects the customer to. Server-rendered HTML, no JavaScript,
 * every merchant-supplied string escaped by the template engine.
 */

const PROVIDER_HINTS: Record<Provider, string> = {
  card: 'Debit or credit card',
  mpaisa: 'Vodafone mobile wallet',
  mycash: 'Digicel mobile wallet',
}

/** The customer's own form; lenient on extra fields, as browsers may send them. */
const payFormSchema = z.object({
  provider: providerSchema,
  // Only a test page shows the outcome control; a hand-made POST without it pays, as live does.
  outcome: z.enum(['succeeded', 'failed', 'processing']).default('succeeded'),
})

/** What the customer sees for a session, from its status, payment and the merchant's clock. */
type View = 'pay' | 'processing' | 'paid' | 'failed' | 'cancelled' | 'expired'

function viewOf(session: CheckoutSessionRecord, now: number): View {
  switch (session.status) {
    case 'succeeded':
      return 'paid'
    case 'failed':
      return 'failed'
    case 'cancelled':
      // Expiry and the merchant's cancel both end in `cancelled`; past expiresAt "expired" is true either way.
      return isExpired(session, now) ? 'expired' : 'cancelled'
    case 'pending':
      // A payment started before expiry may still finish (the expiry job leaves it alone).
      if (paymentStarted(session)) return 'processing'
      return isExpired(session, now) ? 'expired' : 'pay'
  }
}

interface Page {
  status: number
  html: string
  /** Where a form on the page may end up after the POST's redirect (CSP form-action). */
  formTargets: string[]
}

/** What CSP's host-source grammar takes as a host: dot-separated letters, digits and hyphens (an IDN is punycode by now). */
const CSP_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/

/**
 * The CSP source for a URL. A URL's host may hold what CSP reads as syntax
 * (`https://shop.example;sandbox` parses, and would add a directive; `*`
 * would allow any host), and IPv6 literals (test-mode `[::1]`) have no host
 * syntax: for those the scheme stands in.
 */
const cspSource = (url: string): string => {
  const parsed = new URL(url)
  return CSP_HOST.test(parsed.hostname) ? parsed.origin : parsed.protocol
}

function contentSecurityPolicy(formTargets: readonly string[]): string {
  const formAction = ["'self'", ...new Set(formTargets.map(cspSource))].join(' ')
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    // Browsers check form-action along the POST's redirect chain, so the merchant's return URLs are listed.
    `form-action ${formAction}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The hosted pages' headers; a page whose forms lead off-site widens form-action when it is sent. */
export const securityHeaders: RequestHandler = htmlPageHeaders({ contentSecurityPolicy: contentSecurityPolicy([]), referrerPolicy: 'no-referrer' })

function send(res: Response, page: Page): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(page.formTargets))
  res.status(page.status).type('html').send(page.html)
}

/** Renders the hosted pages of one mounted router; `base` is where it is mounted (`/pay`). */
class CheckoutPages {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly base: string,
  ) {}

  statePath = (sessionId: string): string => `${this.base}/${encodeURIComponent(sessionId)}`

  /** The pay page's "Cancel payment": it changes nothing and leads to cancelUrl (see the route). */
  cancelPath = (sessionId: string): string => `${this.statePath(sessionId)}/cancel`

  private render(name: string, values: Record<string, TemplateValue>): SafeHtml {
    return safe(this.ctx.templates.render(`checkout/${name}.html`, values))
  }

  private layout(options: { title: string; mode?: CheckoutSessionRecord['mode']; merchant?: MerchantRecord; content: SafeHtml }): string {
    const displayName = options.merchant?.settings.displayName
    return this.ctx.templates.render('checkout/layout.html', {
      // A <title> holds no markup to isolate the display name in: its bidi controls go instead.
      title: withoutBidiControls(options.title),
      stylesheets: this.render('stylesheet', { href: `${this.base}/assets/checkout.css` }),
      pageClass: 'page',
      hostedBy: 'Checkout by Bula.',
      banner: options.mode === 'test' ? this.render('test-banner', {}) : safe(''),
      merchantHeader:
        displayName === undefined
          ? safe('')
          : this.render('merchant-header', { displayName: userText(displayName), initial: initialOf(displayName), detail: safe('') }),
      content: options.content,
    })
  }

  private link(href: string, label: TemplateValue, style: 'primary' | 'secondary'): SafeHtml {
    return this.render('action-link', { href, label, style })
  }

  private join(parts: readonly SafeHtml[]): SafeHtml {
    return safe(parts.map((part) => part.html).join('\n'))
  }

  payPage(session: CheckoutSessionRecord, merchant: MerchantRecord): Page {
    const amount = formatFjd(session.amount)
    const displayName = merchant.settings.displayName
    const providerOptions = (Object.keys(PROVIDER_NAMES) as Provider[]).map((value) =>
      this.render('provider-option', { value, name: PROVIDER_NAMES[value], hint: PROVIDER_HINTS[value] }),
    )
    const content = this.render('pay', {
      amount,
      invoiceLine: session.invoiceNumber === null ? safe('') : this.render('invoice-line', { invoiceNumber: userText(session.invoiceNumber) }),
      action: this.statePath(session.id),
      providerOptions: this.join(providerOptions),
      testOutcome: session.mode === 'test' ? this.render('test-outcome', {}) : safe(''),
      cancelHref: this.cancelPath(session.id),
    })
    return {
      status: 200,
      html: this.layout({ title: `Pay ${displayName} · ${amount}`, mode: session.mode, merchant, content }),
      formTargets: redirectTargets(this.ctx, session),
    }
  }

  /** Everything but the payment form: where the session stands, and the way back to the merchant. */
  statePage(session: CheckoutSessionRecord, merchant: MerchantRecord, view: Exclude<View, 'pay'> | 'left'): Page {
    const amount = formatFjd(session.amount)
    const displayName = merchant.settings.displayName
    const name = userText(displayName)
    const { successUrl, cancelUrl } = redirectUrls(this.ctx, session)
    const back = (url: string | null, label: SafeHtml): SafeHtml[] =>
      url === null ? [] : [this.link(withSessionId(url, session.id), label, 'primary')]
    let state: { tone: 'ok' | 'bad' | 'wait' | 'quiet'; icon: string; heading: string; message: SafeHtml }
    let actions: SafeHtml[] = []
    const formTargets: string[] = []
    switch (view) {
      case 'paid':
        state = { tone: 'ok', icon: '✓', heading: 'Payment complete', message: html`You paid ${amount} to ${name}.` }
        actions = back(successUrl, html`Continue to ${name}`)
        break
      case 'failed':
        state = {
          tone: 'bad',
          icon: '✕',
          heading: 'Payment declined',
          message: html`Your payment to ${name} did not go through and no money was taken.`,
        }
        actions = back(cancelUrl, html`Return to ${name}`)
        break
      case 'processing': {
        const intent = this.ctx.store.get('paymentIntents', session.paymentIntentIds.at(-1)!)
        const provider = intent?.provider ?? 'card'
        state = {
          tone: 'wait',
          icon: '…',
          heading: 'Payment processing',
          message: html`${PROVIDER_NAMES[provider]} is still processing your payment. ${name} will be told when it completes.`,
        }
        actions = [this.link(this.statePath(session.id), 'Check again', 'secondary')]
        if (session.mode === 'test') {
          actions.unshift(this.render('finish-payment', { action: this.statePath(session.id), provider }))
          formTargets.push(...redirectTargets(this.ctx, session))
        }
        break
      }
      case 'cancelled':
        state = {
          tone: 'quiet',
          icon: '×',
          heading: 'Checkout no longer available',
          message: html`This checkout was closed by ${name}. No money was taken.`,
        }
        actions = back(cancelUrl, html`Return to ${name}`)
        break
      case 'expired':
        state = {
          tone: 'quiet',
          icon: '!',
          heading: 'Checkout expired',
          message: html`This checkout expired before a payment was made. No money was taken. Return to ${name} to start again.`,
        }
        actions = back(cancelUrl, html`Return to ${name}`)
        break
      case 'left':
        state = {
          tone: 'quiet',
          icon: '←',
          heading: 'You left the checkout',
          message: html`No payment was made. You can close this page, or go back and pay.`,
        }
        actions = [this.link(this.statePath(session.id), 'Back to checkout', 'primary')]
        break
    }
    const content = this.render('state', {
      ...state,
      details: this.render('state-details', { amount, reference: session.id }),
      actions: this.join(actions),
    })
    return {
      status: 200,
      html: this.layout({ title: `${state.heading} · ${displayName}`, mode: session.mode, merchant, content }),
      formTargets,
    }
  }

  /** A customer-facing page for any failure: the right status, plain words, never a stack trace. */
  errorPage(error: unknown, sessionId: string | undefined): Page {
    let status = 500
    let heading = 'Something went wrong'
    let message = 'The payment page had a problem. No money was taken. Please try again in a moment.'
    let actions: SafeHtml[] = []
    const backToSession = (label: string): SafeHtml[] =>
      sessionId === undefined ? [] : [this.link(this.statePath(sessionId), label, 'primary')]
    const parserStatus = parserErrorStatus(error)
    const code = error instanceof ApiError ? error.code : parserStatus === undefined ? undefined : 'invalid_request'
    if (error instanceof ApiError) status = error.status
    if (code === 'not_found') {
      heading = 'Checkout not found'
      message = 'This payment link does not match any checkout. Check the link, or ask the business you are paying for a new one.'
    } else if (code === 'invalid_state') {
      heading = 'This checkout cannot take a payment'
      message = 'It has already been paid, declined, cancelled or has expired, so nothing was charged now.'
      actions = backToSession('See this checkout')
    } else if (code === 'live_mode_unavailable') {
      heading = 'Payments are unavailable'
      message = 'This business cannot take payments right now. No money was taken. Please try again later.'
      // Back to checkout alone would lead to the same refusal: the pay page's Cancel leads back to the merchant.
      actions =
        sessionId === undefined
          ? []
          : [this.link(this.cancelPath(sessionId), 'Cancel payment', 'primary'), this.link(this.statePath(sessionId), 'Back to checkout', 'secondary')]
    } else if (code === 'invalid_request') {
      status = parserStatus ?? status
      heading = 'Choose how to pay'
      message = 'The payment form was incomplete. Go back and choose a way to pay.'
      actions = backToSession('Back to checkout')
    } else if (code === 'storage_unavailable') {
      status = 503
      heading = 'Payment not confirmed'
      message = 'Your payment could not be recorded, so it is not confirmed. Please try again in a moment.'
      actions = backToSession('Back to checkout')
    } else if (error instanceof ApiError) {
      heading = 'This payment could not be completed'
      message = 'No money was taken. Please go back and try again.'
      actions = backToSession('Back to checkout')
    }
    const tone = status >= 500 ? 'bad' : 'quiet'
    const content = this.render('state', { tone, icon: '!', heading, message, details: safe(''), actions: this.join(actions) })
    return { status, html: this.layout({ title: heading, content }), formTargets: [] }
  }
}

/** The letter in the merchant header's circle: the display name's first, not an invisible bidi control before it. */
export const initialOf = (displayName: string): string => Array.from(withoutBidiControls(displayName).trim())[0]?.toUpperCase() ?? ''

/**
 * The status of the form reader's own errors (too large, too many fields, a
 * charset other than UTF-8, bytes that are not UTF-8): the customer's form,
 * not a fault, with the status the API and the dashboard give it (errors.ts).
 */
function parserErrorStatus(error: unknown): number | undefined {
  return error instanceof ApiError ? undefined : clientErrorOf(error)?.status
}

/**
 * Express fails to match a path whose percent-escapes do not decode (`/pay/%ZZ`)
 * with a URIError. Such a link names no checkout or invoice, so the hosted
 * pages answer it as any unknown one, not as a fault.
 */
export const undecodablePathAsNotFound = (error: unknown): unknown => (error instanceof URIError ? apiError('not_found', 'No such page.') : error)

/** The merchant's pages a form on the page may lead to, for the Content-Security-Policy's form-action. */
function redirectTargets(ctx: ServiceContext, session: CheckoutSessionRecord): string[] {
  const { successUrl, cancelUrl } = redirectUrls(ctx, session)
  return [successUrl, cancelUrl].filter((url) => url !== null)
}

/** Where the customer goes after paying (spec: success → successUrl, failure → cancelUrl, both with session_id). */
function afterPayment(session: CheckoutSession, statePath: string): string {
  const target = session.status === 'succeeded' ? session.successUrl : session.status === 'failed' ? session.cancelUrl : null
  return target ? withSessionId(target, session.id) : statePath
}

type Outcome = { page: Page } | { redirect: string }

/** Wraps a page route: runs and commits it as every route is (runCommitted), and turns any error into an HTML page. */
function pageRoute(ctx: ServiceContext, route: (req: Request, pages: CheckoutPages) => Outcome | Promise<Outcome>): RequestHandler {
  return async (req, res) => {
    const pages = new CheckoutPages(ctx, req.baseUrl)
    const sessionId = typeof req.params.id === 'string' ? req.params.id : undefined
    try {
      const outcome = await runCommitted(ctx, req, () => route(req, pages))
      if ('redirect' in outcome) res.redirect(303, outcome.redirect)
      else send(res, outcome.page)
    } catch (error) {
      logUnexpected(ctx, error)
      send(res, pages.errorPage(error, sessionId))
    }
  }
}

function logUnexpected(ctx: ServiceContext, error: unknown): void {
  if (error instanceof ApiError || parserErrorStatus(error) !== undefined) return
  ctx.log(`checkout page error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
}

export function checkoutPagesRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(securityHeaders)
  router.get('/assets/checkout.css', (_req, res) => {
    res.type('css').send(ctx.templates.renderText('checkout/checkout.css', {}))
  })
  router.get(
    '/:id',
    pageRoute(ctx, (req, pages) => {
      const { session, merchant } = sessionForCustomer(ctx, String(req.params.id))
      const view = viewOf(session, ctx.clock.now(merchant.id))
      return { page: view === 'pay' ? pages.payPage(session, merchant) : pages.statePage(session, merchant, view) }
    }),
  )
  router.post(
    '/:id',
    formBody('16kb'),
    pageRoute(ctx, (req, pages) => {
      const id = String(req.params.id)
      const { session } = sessionForCustomer(ctx, id)
      const parsed = payFormSchema.safeParse(req.body ?? {})
      if (!parsed.success) throw invalidRequest('Choose a way to pay.', 'provider')
      // Live mode simulates no declines: the customer has no outcome to choose, the payment succeeds.
      const outcome = session.mode === 'live' ? 'succeeded' : parsed.data.outcome
      const { checkoutSession } = paySession(ctx, id, { provider: parsed.data.provider, outcome })
      return { redirect: afterPayment(checkoutSession, pages.statePath(id)) }
    }),
  )
  // The spec lets only the merchant or expiry cancel a session: leaving changes nothing, it only leads back.
  router.get(
    '/:id/cancel',
    pageRoute(ctx, (req, pages) => {
      const { session, merchant } = sessionForCustomer(ctx, String(req.params.id))
      if (viewOf(session, ctx.clock.now(merchant.id)) !== 'pay') return { redirect: pages.statePath(session.id) }
      const { cancelUrl } = redirectUrls(ctx, session)
      if (cancelUrl !== null) return { redirect: withSessionId(cancelUrl, session.id) }
      return { page: pages.statePage(session, merchant, 'left') }
    }),
  )
  router.use(
    pageRoute(ctx, () => {
      throw apiError('not_found', 'No such page.')
    }),
  )
  // Errors raised before a route runs (the form parser, a path that does not percent-decode): still an HTML page.
  const parserErrors: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const shown = undecodablePathAsNotFound(error)
    logUnexpected(ctx, shown)
    if (!res.headersSent) send(res, new CheckoutPages(ctx, req.baseUrl).errorPage(shown, undefined))
  }
  router.use(parserErrors)
  return router
}
