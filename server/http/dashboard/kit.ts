import { timingSafeEqual } from 'node:crypto'
import express, { type Request, type RequestHandler, type Response, type Router } from 'express'
import { z } from 'zod'
import { ApiError, invalidRequest } from '../../../src/errors.js'
import type { Mode } from '../../../src/schemas/index.js'
import { apiError } from '../../domain/error-catalog.js'
import { runCommitted } from '../handle.js'
import type { Caller, ServiceContext } from '../../context.js'
import { keyStillUsable } from '../../services/api-keys.js'
import { escapeHtml, safe, type SafeHtml, type TemplateValue } from '../../templates.js'
import { clientErrorOf } from '../errors.js'
import { formBody, refuseProtoFieldName } from '../json-body.js'
import { htmlPageHeaders } from '../pages/headers.js'
import { parseWith } from '../validate.js'
import type { DashboardSession, DashboardSessions, Flash } from './sessions.js'

/** Where the dashboard is mounted; every link and form action starts with it. */
export const DASHBOARD_BASE = '/dashboard'
export const SESSION_COOKIE = 'bula_dashboard'

/** The navigation, in order; a page names the section it belongs to. */
export const SECTIONS = [
  { id: 'overview', label: 'Overview', path: '' },
  { id: 'sessions', label: 'Checkout Sessions', path: '/sessions' },
  { id: 'invoices', label: 'Invoices', path: '/invoices' },
  { id: 'payouts', label: 'Payouts', path: '/payouts' },
  { id: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { id: 'events', label: 'Events', path: '/events' },
  { id: 'developers', label: 'Developers', path: '/developers' },
  { id: 'settings', label: 'Settings', path: '/settings' },
  { id: 'outbox', label: 'Outbox', path: '/outbox' },
  { id: 'faults', label: 'API faults', path: '/faults' },
  { id: 'doctor', label: 'Doctor', path: '/doctor' },
] as const
export type Section = (typeof SECTIONS)[number]['id']

/** One signed-in request: who acts (the same Caller the API's routes use) and the session behind it. */
export interface Dash {
  caller: Caller
  session: DashboardSession
  /** The merchant's clock at the start of the request. */
  now: number
  /** This request's path under the dashboard, for a form's way back after an error. */
  here: string
}

export interface PageResult {
  title: string
  section: Section
  content: SafeHtml
  status?: number
}

/** What a form's POST did: where to go next (Post/Redirect/Get) and what to say there. */
export interface ActionResult {
  redirect: string
  flash?: Flash
}

export interface ActionInput {
  fields: Record<string, string>
  /** Uploaded files of a multipart form, by field name; empty file inputs are left out. */
  files: Record<string, { type: string; bytes: Buffer }>
}

export type PageHandler = (req: Request, dash: Dash) => PageResult | Promise<PageResult>
export type ActionHandler = (req: Request, dash: Dash, input: ActionInput) => ActionResult | Promise<ActionResult>
/** A GET that writes its own answer (a file, a frame's source, a list's refreshed rows) rather than a page of the layout. */
export type ResourceHandler = (req: Request, res: Response, dash: Dash) => void | Promise<void>

/**
 * What a GET under a session takes. `query` names the query parameters it
 * reads (none unless given); `'any'` is only for the catch-all, which is no
 * page, so its answer is 404 whatever the query. `values` is the page's own
 * reading of those parameters' values, throwing on a bad one. `guard`
 * returns the page to show instead when the merchant may not see this one
 * (Invoices for an individual account); it runs before the query is
 * checked, as on /v1, where the tier (403 business_only) is checked before
 * the query (400).
 */
export interface GetOptions {
  query?: readonly string[] | 'any'
  values?: (req: Request) => unknown
  guard?: (dash: Dash) => PageResult | undefined
}

const STATUS_TONES: Record<string, 'ok' | 'bad' | 'wait'> = {
  succeeded: 'ok',
  paid: 'ok',
  active: 'ok',
  sent: 'ok',
  approved: 'ok',
  failed: 'bad',
  void: 'bad',
  expired: 'bad',
  rejected: 'bad',
  revoked: 'bad',
  inactive: 'bad',
  overdue: 'bad',
  pending: 'wait',
  processing: 'wait',
  open: 'wait',
  draft: 'wait',
  expiring: 'wait',
}

/** A link or redirect target inside the dashboard; empty or missing query values are left out of the address. */
export function dashPath(path = '', query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value)
  const search = params.toString()
  return `${DASHBOARD_BASE}${path}${search === '' ? '' : `?${search}`}`
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "script-src 'self'",
  "connect-src 'self'",
  // The invoice PDF preview is an <iframe> of the dashboard's own PDF route.
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const dashboardHeaders: RequestHandler = htmlPageHeaders({
  contentSecurityPolicy: CONTENT_SECURITY_POLICY,
  // Not no-referrer: with it Chromium sends `Origin: null` on form posts, and the origin check needs the real one.
  // Dashboard URLs hold no secret (the login link redirects away at once), and other sites get no Referer.
  referrerPolicy: 'same-origin',
})

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

export const sameToken = (a: string, b: string): boolean => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Forms may only come from pages of this simulator: a browser's Origin header says where a form was. */
export function sameOrigin(req: Request): boolean {
  const origin = req.get('origin')
  if (origin === undefined) return true
  return origin === `${req.protocol}://${req.get('host') ?? ''}`
}

const MULTIPART_LIMIT = '12mb'
const urlencoded = formBody('64kb')
const multipart = express.raw({ type: 'multipart/form-data', limit: MULTIPART_LIMIT })

/** Node's fetch parses multipart bodies, so uploads need no extra dependency. */
async function parseMultipart(req: Request): Promise<ActionInput> {
  const contentType = req.get('content-type') ?? ''
  if (!Buffer.isBuffer(req.body) || !contentType.startsWith('multipart/form-data')) {
    throw apiError('invalid_request', 'Send this form as multipart/form-data.')
  }
  let form: FormData
  try {
    form = await new Response(req.body, { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw apiError('invalid_request', 'The form upload could not be read.')
  }
  const input: ActionInput = { fields: {}, files: {} }
  for (const name of form.keys()) {
    refuseProtoFieldName(name)
    refuseRepeat(name, form.getAll(name).length)
  }
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') input.fields[name] = value
    else if (value.size > 0) input.files[name] = { type: value.type, bytes: Buffer.from(await value.arrayBuffer()) }
  }
  return input
}

/**
 * Each of the dashboard's form fields has a name of its own, so a name sent
 * twice is a hand-made or broken form: refused naming it, in the words /v1
 * uses for a query parameter given twice, where the readers would otherwise
 * keep one of the values (multipart) or none (urlencoded makes a list).
 */
function refuseRepeat(name: string, count: number): void {
  if (count > 1) throw invalidRequest(`Invalid \`${name}\`: give it once, not ${count} times.`, name)
}

function urlencodedInput(req: Request): ActionInput {
  const body = (req.body ?? {}) as Record<string, unknown>
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) refuseRepeat(name, value.length)
    if (typeof value === 'string') fields[name] = value
  }
  return { fields, files: {} }
}

/** One value of a query parameter: one given twice is a list, which parseWith refuses by saying so. */
const singleQueryValue = z.string()

/**
 * A check that a request's query holds only `names`, the parameters its page
 * reads, each once: any other name, or one given twice, is 400
 * invalid_request naming it, as on /v1, whose routes refuse a query
 * parameter they do not declare and take one value of each. A mistyped
 * filter (`?stauts=paid`) or a repeated one (`?status=open&status=paid`)
 * says so instead of showing the whole list. As on /v1, a repeated name is
 * reported before an unknown one, and so is a bad value: /v1 parses a
 * query's values and names with one schema, which judges the values first,
 * so an unknown name is refused only once `values` (the page's own reading)
 * finds them good; otherwise the check passes and the page names the bad
 * value as it does when it is alone. An empty value stays the page's to
 * read: its filter forms send `status=` for "all".
 */
export function strictQuery(names: readonly string[], values?: (req: Request) => unknown): (req: Request) => void {
  const schema = z.strictObject(Object.fromEntries(names.map((name) => [name, singleQueryValue.optional()])))
  return (req) => {
    const result = schema.safeParse(req.query)
    if (result.success) return
    if (result.error.issues[0]!.code === 'unrecognized_keys' && values && !valuesAreGood(values, req)) return
    parseWith(schema, req.query, 'query')
  }
}

/**
 * The check of an address that reads no query: the stylesheet and the script
 * (the pages link them without one, and they are never cached, so no version
 * is needed), every form's target (no form of the dashboard posts one; the
 * way back is the form's `_back` field) and the login link.
 */
export const noQuery = strictQuery([])

function valuesAreGood(values: (req: Request) => unknown, req: Request): boolean {
  try {
    values(req)
    return true
  } catch (error) {
    if (error instanceof ApiError) return false
    throw error
  }
}

/** A form's way back after an error: only a path inside the dashboard, never another site. */
function backPath(value: string | undefined): string {
  return value !== undefined && (value === DASHBOARD_BASE || value.startsWith(`${DASHBOARD_BASE}/`)) && !value.startsWith('//')
    ? value
    : DASHBOARD_BASE
}

/** The message a person reads for an error a form or a filter ran into; undefined for a fault of the simulator. */
export function errorFlash(error: unknown): Flash | undefined {
  if (error instanceof ApiError && error.code === 'storage_unavailable') {
    return { tone: 'error', text: 'The change could not be saved: the data file is not writable. Nothing was changed.' }
  }
  if (error instanceof ApiError) {
    return { tone: 'error', text: error.message, details: error.param ? [`Field: ${error.param}`] : undefined }
  }
  return undefined
}

/**
 * The dashboard's building blocks: rendering from templates/dashboard, the
 * layout, forms that always carry the CSRF token, and the wrappers every
 * page (GET) and action (POST) route goes through. Pages call the same
 * services as the API with the session's Caller, so every rule has one home.
 */
/** `/dashboard/sign-in?ended=key`: the session ended because the key it signed in with was revoked or past its rotation overlap. */
export const SIGNED_OUT_KEY_ENDED = 'key'

export class DashboardKit {
  constructor(
    readonly ctx: ServiceContext,
    readonly sessions: DashboardSessions,
  ) {}

  render(name: string, values: Record<string, TemplateValue> = {}): SafeHtml {
    return safe(this.ctx.templates.render(`dashboard/${name}.html`, values))
  }

  join(parts: readonly SafeHtml[], separator = '\n'): SafeHtml {
    return safe(parts.map((part) => part.html).join(separator))
  }

  /**
   * A form posting to `action` (a path under the dashboard). It always
   * carries the session's CSRF token and the way back to this page.
   */
  form(
    dash: Dash,
    options: {
      action: string
      submit: string
      fields?: SafeHtml
      style?: 'primary' | 'secondary' | 'danger'
      multipart?: boolean
      className?: string
      /** A question dashboard.js asks before a destructive action; without JavaScript the form just submits. */
      confirm?: string
    },
  ): SafeHtml {
    return this.render('form', {
      action: dashPath(options.action),
      enctype: options.multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
      className: options.className ?? 'inline-form',
      csrf: dash.session.csrfToken,
      back: dash.here,
      fields: options.fields ?? safe(''),
      submit: options.submit,
      style: options.style ?? 'primary',
      confirm: options.confirm === undefined ? safe('') : safe(` data-confirm="${escapeHtml(options.confirm)}"`),
    })
  }

  /** A data table; `cells` are already-rendered HTML per column, so links and badges fit in. */
  table(headers: readonly string[], rows: ReadonlyArray<readonly (SafeHtml | string)[]>, empty: string): SafeHtml {
    if (rows.length === 0) return this.render('empty', { text: empty })
    const cell = (value: SafeHtml | string): string => (typeof value === 'string' ? escapeHtml(value) : value.html)
    return this.render('table', {
      head: safe(headers.map((header) => `<th scope="col">${escapeHtml(header)}</th>`).join('')),
      rows: safe(rows.map((row) => `<tr>${row.map((value) => `<td>${cell(value)}</td>`).join('')}</tr>`).join('\n')),
    })
  }

  /** The <option>s of a select, with `current` selected. */
  options(choices: ReadonlyArray<{ value: string; label: string }>, current: string): SafeHtml {
    return this.join(
      choices.map((choice) => this.render('option', { value: choice.value, label: choice.label, selected: safe(choice.value === current ? ' selected' : '') })),
    )
  }

  /** The links between pages of a list (`what` names the list for screen readers); nothing when there is one page. */
  pager(what: string, links: ReadonlyArray<{ label: string; href: string }>): SafeHtml {
    if (links.length === 0) return safe('')
    return this.render('pager', { what, links: this.join(links.map((link) => this.render('pager-link', link))) })
  }

  /**
   * A table cell's text that a merchant or customer wrote (an item's
   * description, a customer's name, metadata): a long word in it breaks
   * instead of widening the table past its card, which hid the amounts
   * beside it. Only these cells break anywhere, so an amount never wraps.
   */
  freeText(value: SafeHtml | string): SafeHtml {
    return safe(`<span class="free-text">${typeof value === 'string' ? escapeHtml(value) : value.html}</span>`)
  }

  link(path: string, label: string): SafeHtml {
    return safe(`<a href="${escapeHtml(dashPath(path))}">${escapeHtml(label)}</a>`)
  }

  badge(text: string, tone: 'ok' | 'bad' | 'wait' | 'quiet' = 'quiet'): SafeHtml {
    return safe(`<span class="badge badge-${tone}">${escapeHtml(text)}</span>`)
  }

  /** A status of any object (session, invoice, payout, endpoint, delivery), coloured by how it ended. */
  statusBadge(status: string): SafeHtml {
    return this.badge(status, STATUS_TONES[status] ?? 'quiet')
  }

  /** A page: only with a session (GetOptions); the layout, navigation and flash come from here. */
  page(router: Router, path: string, handler: PageHandler, options: GetOptions = {}): void {
    this.resource(router, path, async (req, res, dash) => this.send(res, dash, await handler(req, dash)), options)
  }

  /**
   * A GET whose handler writes the answer itself (a file, a frame's source):
   * the same session, guard and query rules as a page (GetOptions); an error
   * the handler throws, before it writes, is the dashboard's error page.
   */
  resource(router: Router, path: string, handler: ResourceHandler, { query = [], values, guard }: GetOptions = {}): void {
    const checkQuery = query === 'any' ? () => {} : strictQuery(query, values)
    router.get(path, async (req, res) => {
      const dash = this.signedIn(req, res)
      if (!dash) return
      try {
        const instead = guard?.(dash)
        if (instead) {
          this.send(res, dash, instead)
          return
        }
        checkQuery(req)
        await handler(req, res, dash)
      } catch (error) {
        this.sendError(res, dash, error)
      }
    })
  }

  /** A form's target: session, CSRF token and origin, then an empty query (noQuery), checked before `handler` runs; changes on disk before the redirect. */
  action(router: Router, path: string, handler: ActionHandler, options: { multipart?: boolean } = {}): void {
    router.post(path, options.multipart ? multipart : urlencoded, async (req, res) => {
      const dash = this.signedIn(req, res)
      if (!dash) return
      let input: ActionInput
      try {
        input = options.multipart ? await parseMultipart(req) : urlencodedInput(req)
      } catch (error) {
        this.sendError(res, dash, error)
        return
      }
      if (!sameToken(input.fields._csrf ?? '', dash.session.csrfToken) || !sameOrigin(req)) {
        this.sendError(res, dash, apiError('csrf_failed', 'This form has expired or did not come from the dashboard. Reload the page and try again.'))
        return
      }
      try {
        noQuery(req)
      } catch (error) {
        // The 400 page a page gives, not a message on the way back: only a hand-made request posts a query here.
        this.sendError(res, dash, error)
        return
      }
      const back = backPath(input.fields._back)
      try {
        const result = await runCommitted(this.ctx, req, () => handler(req, { ...dash, here: back }, input))
        dash.session.flash = result.flash ?? null
        res.redirect(303, result.redirect)
      } catch (error) {
        const flash = errorFlash(error)
        if (!flash) {
          this.sendError(res, dash, error)
          return
        }
        dash.session.flash = flash
        // The page comes back with what was typed, not an empty form (issue 14).
        const { _csrf: _token, _back: _way, ...typed } = input.fields
        dash.session.typed = { action: req.path, fields: typed }
        res.redirect(303, back)
      }
    })
  }

  /** The session the request's cookie names, if any, and its merchant. */
  private sessionOf(req: Request): { session?: DashboardSession; merchant?: Caller['merchant'] } {
    const session = this.sessions.find(readCookie(req, SESSION_COOKIE) ?? '')
    return { session, merchant: session && this.ctx.store.get('merchants', session.merchantId) }
  }

  /** The request's session and Caller, while its session lasts: only while the key it signed in with still authenticates. */
  private dashOf(req: Request, { session, merchant } = this.sessionOf(req)): Dash | undefined {
    if (!session || !merchant || !keyStillUsable(this.ctx, session.key)) return undefined
    // Live pages only while live mode is unlocked (an import or reset may have changed that).
    if (session.mode === 'live' && !merchant.liveUnlocked) session.mode = 'test'
    const caller: Caller = { merchant, key: session.key, mode: session.mode }
    return { caller, session, now: this.ctx.clock.now(merchant.id), here: req.originalUrl }
  }

  /** The request's session and Caller; without one, a GET goes to sign-in and anything else gets 403. */
  signedIn(req: Request, res: Response): Dash | undefined {
    const { session, merchant } = this.sessionOf(req)
    const dash = this.dashOf(req, { session, merchant })
    if (!dash) {
      // A session whose key was revoked, or is past its overlap, is signed out.
      if (session) this.sessions.end(session.id)
      // The sign-in form then says why, so that revoking one's own key does not look like a fault.
      const signIn = dashPath(session && merchant ? `/sign-in?ended=${SIGNED_OUT_KEY_ENDED}` : '/sign-in')
      if (req.method === 'GET' || req.method === 'HEAD') {
        res.redirect(303, signIn)
      } else {
        res.status(403).type('html').send(this.bare('Signed out', this.render('signed-out', { signIn })))
      }
      return undefined
    }
    return dash
  }

  /**
   * What was typed into the form posting to `action` when the simulator
   * refused it just before this page; undefined otherwise. Pages fill their
   * forms from it rather than from the stored values.
   */
  typed(dash: Dash, action: string): Record<string, string> | undefined {
    const typed = dash.session.typed
    return typed?.action === action ? typed.fields : undefined
  }

  send(res: Response, dash: Dash, page: PageResult): void {
    const flash = dash.session.flash
    dash.session.flash = null
    dash.session.typed = null
    res.status(page.status ?? 200).type('html').send(this.layout(dash, page, flash))
  }

  /** The error page for `error`: its status, message and code; a bug's stack goes to the log, never the page. */
  private errorPage(error: unknown): PageResult & { status: number } {
    const status = error instanceof ApiError ? error.status : 500
    if (status === 500) this.ctx.log(`dashboard error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    const message = errorFlash(error)?.text ?? 'Something went wrong in the simulator; the details are in its log.'
    const code = error instanceof ApiError ? error.code : 'internal_error'
    return {
      status,
      title: status === 404 ? 'Not found' : 'Something went wrong',
      section: 'overview',
      content: this.render('error', { heading: status === 404 ? 'Not found' : 'That did not work', message, code }),
    }
  }

  sendError(res: Response, dash: Dash, error: unknown): void {
    this.send(res, dash, this.errorPage(error))
  }

  /**
   * An error met before a page or form ran (a form over its limit, a charset
   * other than UTF-8, a path that does not decode): the error page, with the
   * status and code the API would answer, in the layout when the request has
   * a session. A browser shows a page, not the API's JSON.
   */
  sendEarlyError(req: Request, res: Response, error: unknown): void {
    const page = this.errorPage(clientErrorOf(error) ?? error)
    const dash = this.dashOf(req)
    if (dash) this.send(res, dash, page)
    else res.status(page.status).type('html').send(this.bare(page.title, page.content))
  }

  private layout(dash: Dash, page: PageResult, flash: Flash | null): string {
    const { merchant, mode } = dash.caller
    const nav = SECTIONS.map((section) =>
      this.render('nav-item', {
        href: dashPath(section.path),
        label: section.label,
        current: section.id === page.section ? 'page' : 'false',
      }),
    )
    let modeSwitch = safe('')
    if (merchant.liveUnlocked && dash.session.liveAccess) {
      modeSwitch = this.form(dash, {
        action: '/mode',
        submit: mode === 'test' ? 'Switch to live data' : 'Switch to test data',
        fields: this.render('hidden', { name: 'mode', value: otherMode(mode) }),
        style: 'secondary',
      })
    } else if (merchant.liveUnlocked) {
      modeSwitch = this.render('live-sign-in-hint', { signIn: dashPath('/sign-in') })
    }
    return this.ctx.templates.render('dashboard/layout.html', {
      title: `${page.title} · ${merchant.settings.displayName} · Bula dashboard`,
      merchantName: merchant.settings.displayName,
      modeClass: mode,
      modeLabel: mode === 'test' ? 'Test data' : 'Live data',
      modeSwitch,
      nav: this.join(nav),
      signOut: this.form(dash, { action: '/sign-out', submit: 'Sign out', style: 'secondary' }),
      flash: flash ? this.flash(flash) : safe(''),
      content: page.content,
      assets: dashPath('/assets'),
    })
  }

  flash(flash: Flash): SafeHtml {
    return this.render('flash', {
      tone: flash.tone,
      role: flash.tone === 'error' ? 'alert' : 'status',
      text: flash.text,
      details: flash.details?.length ? safe(`<ul>${flash.details.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`) : safe(''),
      secret: flash.secret ? this.render('secret', { secret: flash.secret }) : safe(''),
    })
  }

  /** A page outside a session (sign-in, signed out): the same stylesheet, no navigation. */
  bare(title: string, content: SafeHtml): string {
    return this.ctx.templates.render('dashboard/bare.html', { title: `${title} · Bula dashboard`, brand: 'Bula dashboard', content, assets: dashPath('/assets') })
  }
}

const otherMode = (mode: Mode): Mode => (mode === 'test' ? 'live' : 'test')
