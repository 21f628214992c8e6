import { apiError } from '../../domain/error-catalog.js'
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express'
import { dashboardLoginLinkSchema, emptyBodySchema, modeSchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { parseKeyPrefix } from '../../domain/api-key.js'
import { newToken } from '../../ids.js'
import { findUsableKey, keyStillUsable } from '../../services/api-keys.js'
import { safe } from '../../templates.js'
import { apiRouter, apiRoutes } from '../api-route.js'
import { formBody } from '../json-body.js'
import { DASHBOARD_BASE, DashboardKit, SESSION_COOKIE, SIGNED_OUT_KEY_ENDED, dashPath, dashboardHeaders, noQuery, readCookie, sameOrigin, sameToken, strictQuery } from './kit.js'
import { registerDevelopersPages } from './pages/developers.js'
import { registerDoctorPages } from './pages/doctor.js'
import { registerFaultsPages } from './pages/faults.js'
import { registerInvoicesPages } from './pages/invoices.js'
import { registerOutboxPages } from './pages/outbox.js'
import { registerOverviewPages } from './pages/overview.js'
import { registerPayoutsPages } from './pages/payouts.js'
import { registerSessionsPages } from './pages/sessions.js'
import { registerSettingsPages } from './pages/settings.js'
import { registerWebhooksPages } from './pages/webhooks.js'
import type { DashboardSession, DashboardSessions } from './sessions.js'

/** The sign-in form's own CSRF token, as a cookie (double submit): there is no session yet to keep it in. */
const SIGN_IN_COOKIE = 'bula_dashboard_sign_in'

const cookieAttributes = `Path=${DASHBOARD_BASE}; HttpOnly; SameSite=Strict`

function setSessionCookie(res: Response, session: DashboardSession): void {
  res.append('Set-Cookie', `${SESSION_COOKIE}=${session.id}; ${cookieAttributes}`)
}

/**
 * The merchant dashboard stand-in as web pages (docs/dashboard.md). Signing
 * in takes a one-time link from `bula dashboard` or a secret key typed into
 * a form: never a key in a URL. Every page needs the session cookie; every
 * form carries the session's CSRF token.
 */
export function dashboardRouter(ctx: ServiceContext, sessions: DashboardSessions): Router {
  const router = Router()
  const kit = new DashboardKit(ctx, sessions)
  router.use(dashboardHeaders)

  // A refused query goes to earlyErrors below: the pages' 400 page, which a browser applies as neither a stylesheet nor a script.
  router.get('/assets/dashboard.css', (req, res) => {
    noQuery(req)
    res.type('css').send(ctx.templates.renderText('dashboard/dashboard.css', {}))
  })
  router.get('/assets/dashboard.js', (req, res) => {
    noQuery(req)
    res.type('js').send(ctx.templates.renderText('dashboard/dashboard.js', {}))
  })

  /** The sign-in form, with a refusal's message and, as on the error pages, its code when the API has one. */
  const signInPage = (res: Response, status: number, error?: string, code?: string): void => {
    const csrf = newToken()
    res.append('Set-Cookie', `${SIGN_IN_COOKIE}=${csrf}; ${cookieAttributes}`)
    const content = kit.render('sign-in', {
      action: dashPath('/sign-in'),
      csrf,
      error: error ? kit.flash({ tone: 'error', text: error, details: code ? [`Error code: ${code}`] : undefined }) : safe(''),
    })
    res.status(status).type('html').send(kit.bare('Sign in', content))
  }

  // Outside a session, but held to the pages' query rule: a refusal goes to earlyErrors below, an error page.
  const checkSignInQuery = strictQuery(['ended'])

  router.get('/sign-in', (req, res) => {
    checkSignInQuery(req)
    signInPage(
      res,
      200,
      req.query.ended === SIGNED_OUT_KEY_ENDED ? 'You were signed out: the key you signed in with was revoked, or its rotation overlap ended. Sign in with a key that works.' : undefined,
    )
  })
  router.post('/sign-in', formBody('16kb'), (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>
    const token = typeof body._csrf === 'string' ? body._csrf : ''
    if (!sameToken(token, readCookie(req, SIGN_IN_COOKIE) ?? '') || !sameOrigin(req)) {
      signInPage(res, 403, 'This form has expired. Paste the key again.', 'csrf_failed')
      return
    }
    // As a form's target under a session (kit.action): the sign-in form posts no query.
    noQuery(req)
    const plaintext = typeof body.key === 'string' ? body.key.trim() : ''
    const claimed = parseKeyPrefix(plaintext)
    if (claimed?.type === 'publishable') {
      // 403, as a publishable key is everywhere a secret key is needed (docs/dashboard.md).
      signInPage(res, 403, 'That is a publishable key (pk_…). Sign in with a secret key (sk_test_… or sk_live_…).', 'publishable_key_forbidden')
      return
    }
    const key = claimed ? findUsableKey(ctx, plaintext) : undefined
    if (!key || !ctx.store.get('merchants', key.merchantId)) {
      signInPage(res, 401, 'That key is not a usable secret key of any merchant on this simulator.', 'invalid_api_key')
      return
    }
    setSessionCookie(res, sessions.start(key))
    res.append('Set-Cookie', `${SIGN_IN_COOKIE}=; ${cookieAttributes}; Max-Age=0`)
    res.redirect(303, dashPath())
  })

  // The link from `bula dashboard`: used up on the first visit, then the address bar shows /dashboard.
  router.get('/login/:token', (req, res) => {
    // Before the link is used up: a link refused for its query still works without it.
    noQuery(req)
    // Express answers HEAD with this route: a link checker or a chat app's preview (a HEAD before the click) would
    // use the link up. It only learns that the address answers, not whether the link is still good.
    if (req.method === 'HEAD') {
      res.status(200).type('html').end()
      return
    }
    const session = sessions.redeemLoginLink(String(req.params.token))
    if (!session) {
      signInPage(res, 401, 'That sign-in link has been used or has expired. Run `npx bula dashboard` again, or sign in with a secret key.')
      return
    }
    if (!keyStillUsable(ctx, session.key)) {
      sessions.end(session.id)
      signInPage(res, 401, 'That sign-in link was made with a key that has since been revoked or has expired. Sign in with a key that works.')
      return
    }
    setSessionCookie(res, session)
    res.redirect(303, dashPath())
  })

  router.post('/sign-out', formBody('16kb'), (req, res) => {
    const session = sessions.find(readCookie(req, SESSION_COOKIE) ?? '')
    const body = (req.body ?? {}) as Record<string, unknown>
    if (session && !(sameToken(typeof body._csrf === 'string' ? body._csrf : '', session.csrfToken) && sameOrigin(req))) {
      // Another site must not be able to sign you out either.
      const content = kit.render('error', { heading: 'Not signed out', message: 'This form has expired. Reload the page and try again.', code: 'csrf_failed' })
      res.status(403).type('html').send(kit.bare('Sign out', content))
      return
    }
    noQuery(req)
    if (session) sessions.end(session.id)
    res.append('Set-Cookie', `${SESSION_COOKIE}=; ${cookieAttributes}; Max-Age=0`)
    res.redirect(303, dashPath('/sign-in'))
  })

  kit.action(router, '/mode', (_req, dash, input) => {
    const mode = modeSchema.safeParse(input.fields.mode)
    if (!mode.success) throw apiError('invalid_request', 'Choose test or live data.', { param: 'mode' })
    if (mode.data === 'live' && !dash.caller.merchant.liveUnlocked) {
      throw apiError('live_mode_locked', 'Live data appears once verification is approved (Settings).')
    }
    if (mode.data === 'live' && !dash.session.liveAccess) {
      throw apiError('live_key_required', 'Sign in with a live secret key (sk_live_…) to see live data.')
    }
    dash.session.mode = mode.data
    return { redirect: dashPath(), flash: { tone: 'ok', text: mode.data === 'live' ? 'Showing live data.' : 'Showing test data.' } }
  })

  registerOverviewPages(kit, router)
  registerSessionsPages(kit, router)
  registerInvoicesPages(kit, router)
  registerPayoutsPages(kit, router)
  registerWebhooksPages(kit, router)
  registerDevelopersPages(kit, router)
  registerSettingsPages(kit, router)
  registerOutboxPages(kit, router)
  registerFaultsPages(kit, router)
  registerDoctorPages(kit, router)

  kit.page(
    router,
    '/*splat',
    () => {
      throw apiError('not_found', 'No such dashboard page.')
    },
    { query: 'any' },
  )
  // Errors raised before a page or form runs (its form parser, a path that does not percent-decode): an HTML page, not the API's JSON.
  const earlyErrors: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    if (!res.headersSent) kit.sendEarlyError(req, res, error)
  }
  router.use(earlyErrors)
  return router
}

/** `POST /_sim/dashboard/login-links`: what `bula dashboard` opens. */
export function dashboardLoginRouter(ctx: ServiceContext, sessions: DashboardSessions): Router {
  const router = apiRouter()
  apiRoutes(router, ctx)(
    {
      method: 'post',
      path: '/login-links',
      summary: 'A one-time link that opens the dashboard signed in as this key\'s merchant and mode',
      description: 'The link holds a 256-bit token, never the key; it works once, for 5 minutes, and not at all once its key is revoked.',
      auth: 'secret',
      body: emptyBodySchema,
      response: { status: 201, body: dashboardLoginLinkSchema },
    },
    ({ caller }) => {
      const { token, expiresAt } = sessions.createLoginLink(caller.key)
      return { status: 201, body: { url: `${ctx.urls.base}${dashPath(`/login/${token}`)}`, expiresAt } }
    },
  )
  return router
}
