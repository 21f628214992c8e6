import { expect } from 'vitest'
import { call } from './http.js'

export interface DashboardPage {
  status: number
  html: string
  headers: Headers
  /** Where a redirect pointed (Location), if it was one. */
  location: string | null
}

/** The `_csrf` value of the first form on a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error('no CSRF token on the page')
  return match[1]!
}

/**
 * A browser stand-in for the dashboard's HTTP tests: keeps the session
 * cookie, never follows redirects (tests look at them), and posts forms
 * with the CSRF token of the page they came from.
 */
export class DashboardAgent {
  private cookie = ''

  constructor(readonly baseUrl: string) {}

  /** Signs in the way `bula dashboard` does: a one-time link made with the secret key. */
  static async signIn(baseUrl: string, secretKey: string): Promise<DashboardAgent> {
    const link = await call(baseUrl, 'POST', '/_sim/dashboard/login-links', { key: secretKey })
    if (link.status !== 201) throw new Error(`login link failed: ${JSON.stringify(link.body)}`)
    const agent = new DashboardAgent(baseUrl)
    const landed = await agent.get(new URL(link.body.url as string).pathname)
    if (landed.status !== 303 || !agent.cookie) throw new Error(`login link did not sign in: ${landed.status}`)
    return agent
  }

  get signedIn(): boolean {
    return this.cookie !== ''
  }

  async get(path: string): Promise<DashboardPage> {
    return this.request(path, { method: 'GET' })
  }

  /** Posts `fields` as a form from `fromPath` (its CSRF token and way back), as a browser would. */
  async submit(fromPath: string, action: string, fields: Record<string, string> = {}): Promise<DashboardPage> {
    const page = await this.get(fromPath)
    if (page.status !== 200) throw new Error(`${fromPath} answered ${page.status}`)
    return this.post(action, { _csrf: csrfOf(page.html), _back: fromPath, ...fields })
  }

  /** `fields` as entries when a name is sent more than once, as a hand-made form can. */
  async post(path: string, fields: Record<string, string> | [string, string][], headers: Record<string, string> = {}): Promise<DashboardPage> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    })
  }

  /** A multipart POST, as a form with file inputs sends it. */
  async postMultipart(path: string, form: FormData): Promise<DashboardPage> {
    return this.request(path, { method: 'POST', body: form })
  }

  /** Follows a 303 after a form, returning the page it leads to. */
  async follow(page: DashboardPage): Promise<DashboardPage> {
    if (page.status !== 303 || !page.location) throw new Error(`expected a 303, got ${page.status}: ${page.html.slice(0, 300)}`)
    return this.get(new URL(page.location, this.baseUrl).pathname + new URL(page.location, this.baseUrl).search)
  }

  private async request(path: string, init: RequestInit): Promise<DashboardPage> {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: 'manual' })
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair] = setCookie.split(';')
      const [name, value] = pair!.split('=')
      if (name === 'bula_dashboard') this.cookie = value ? `bula_dashboard=${value}` : ''
    }
    return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') }
  }
}

/** An attribute value or text of the page as typed: the page escapes it. */
export const unescapeHtml = (value: string): string =>
  value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** The error flash of a page, or '' without one. */
export const errorFlashOf = (page: DashboardPage): string => /<div class="flash flash-error"[\s\S]*?<\/div>/.exec(page.html)?.[0] ?? ''
export const okFlashOf = (page: DashboardPage): string => /<div class="flash flash-ok"[\s\S]*?<\/div>/.exec(page.html)?.[0] ?? ''

/** The form posting to `action` on a page, as its HTML. */
export function formOf(page: DashboardPage, action: string): string {
  const form = new RegExp(`<form method="post" action="${action}"[^>]*>([\\s\\S]*?)</form>`).exec(page.html)
  if (!form) throw new Error(`no form to ${action} on the page: ${page.html.slice(0, 500)}`)
  return form[1]!
}

/** The hidden fields (CSRF token, way back, idempotency key) of the form posting to `action`, as a browser would send them. */
export function hiddenFieldsOf(page: DashboardPage, action: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const [, name, value] of formOf(page, action).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[name!] = unescapeHtml(value!)
  return fields
}

/** Posts the form to `action` found on `fromPath`, with `fields` typed in. */
export async function submitForm(agent: DashboardAgent, fromPath: string, action: string, fields: Record<string, string> = {}): Promise<DashboardPage> {
  const page = await agent.get(fromPath)
  expect(page.status).toBe(200)
  return agent.post(action, { ...hiddenFieldsOf(page, action), ...fields })
}
