import { beforeAll, describe, expect, it } from 'vitest'
import { DashboardAgent, csrfOf } from '../helpers/dashboard.js'
import { call, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'

let base: string
const logLines: string[] = []

const server = useTestServer({ logRequests: true, log: (line) => logLines.push(line) })
beforeAll(async () => {
  base = server().baseUrl
})

/** Every dashboard page reachable by links from the overview, with the HTML each answered. */
async function crawl(agent: DashboardAgent, limit = 60): Promise<Map<string, string>> {
  const seen = new Map<string, string>()
  const queue = ['/dashboard']
  while (queue.length > 0 && seen.size < limit) {
    const path = queue.shift()!
    if (seen.has(path)) continue
    const page = await agent.get(path)
    expect(page.status, path).toBe(200)
    if (!(page.headers.get('content-type') ?? '').startsWith('text/html')) continue
    seen.set(path, page.html)
    for (const [, href] of page.html.matchAll(/href="(\/dashboard[^"#]*)"/g)) {
      const target = href!.replaceAll('&amp;', '&')
      if (!target.startsWith('/dashboard/assets') && !/\/pdf$/.test(target) && !seen.has(target)) queue.push(target)
    }
  }
  return seen
}

function formData(fields: Record<string, string>): FormData {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  return form
}

/** A merchant with something on every page: a paid session, an endpoint, an invoice. */
async function busyMerchant() {
  const { merchant, keys } = await signupMerchant(base)
  const api = client(base, keys.secret)
  const session = await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, { headers: { 'idempotency-key': `s-${merchant.id}` } })
  await api.post(`/_sim/checkout-sessions/${session.body.id}/pay`, { outcome: 'succeeded' })
  await api.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })
  await api.post(
    '/v1/invoices',
    { customer: { name: 'Lautoka Surf Club', email: 'a@surf.example' }, items: [{ description: 'Kava', quantity: 1, unitAmount: 4550 }], dueDate: '2026-12-31' },
    { headers: { 'idempotency-key': `i-${merchant.id}` } },
  )
  return { merchant, keys, api, sessionId: session.body.id as string }
}

describe('signing in', () => {
  // A HEAD went through the GET route and used the link up: a link checker or a chat preview signed nobody in.
  it('leaves the link unused by a HEAD, which sets no cookie; the GET after it signs in', async () => {
    const { keys } = await signupMerchant(base)
    const link = await call(base, 'POST', '/_sim/dashboard/login-links', { key: keys.secret })
    const head = await fetch(link.body.url as string, { method: 'HEAD', redirect: 'manual' })
    expect([head.status, head.headers.getSetCookie()]).toEqual([200, []])
    const get = await fetch(link.body.url as string, { redirect: 'manual' })
    expect([get.status, get.headers.get('location')]).toEqual([303, '/dashboard'])
    expect(get.headers.getSetCookie().some((cookie) => cookie.startsWith('bula_dashboard='))).toBe(true)
  })

  it('bula dashboard\'s link signs in once; the address holds a random token, never the key', async () => {
    const { keys } = await signupMerchant(base)
    const link = await call(base, 'POST', '/_sim/dashboard/login-links', { key: keys.secret })
    expect(link.status).toBe(201)
    expect(link.body.url).toMatch(new RegExp(`^${base}/dashboard/login/[A-Za-z0-9_-]{43}$`))
    expect(link.body.url).not.toContain(keys.secret)
    expect(link.body.expiresAt).toBeGreaterThan(Date.now())

    const path = new URL(link.body.url as string).pathname
    const first = await fetch(`${base}${path}`, { redirect: 'manual' })
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/dashboard')
    const cookie = first.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard='))!
    expect(cookie).toMatch(/^bula_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/)

    const again = await fetch(`${base}${path}`, { redirect: 'manual' })
    expect(again.status).toBe(401)
    expect(again.headers.getSetCookie().some((line) => line.startsWith('bula_dashboard='))).toBe(false)
    expect(await again.text()).toContain('That sign-in link has been used or has expired')
  })

  // Every other dashboard page refused a query it does not read; these two took any.
  it('the sign-in form and the login link take only the query they read, each once, and a refused link still works', async () => {
    const signIn = async (query: string) => {
      const response = await fetch(`${base}/dashboard/sign-in${query}`, { redirect: 'manual' })
      return { status: response.status, type: response.headers.get('content-type'), html: await response.text() }
    }
    const unknown = await signIn('?colour=blue')
    expect([unknown.status, unknown.type?.startsWith('text/html')]).toEqual([400, true])
    expect(unknown.html).toContain('Unknown query parameter `colour`.')
    expect(unknown.html).toContain('<code>invalid_request</code>')
    expect((await signIn('?ended=key&ended=key')).html).toContain('Invalid `ended`: give it once, not 2 times.')
    // What a session ended by its key's revocation is sent to: the form says why.
    const ended = await signIn('?ended=key')
    expect(ended.status).toBe(200)
    expect(ended.html).toContain('You were signed out: the key you signed in with was revoked')

    const { keys } = await signupMerchant(base)
    const link = (await call(base, 'POST', '/_sim/dashboard/login-links', { key: keys.secret })).body.url as string
    const refused = await fetch(`${link}?colour=blue`, { redirect: 'manual' })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('Unknown query parameter `colour`.')
    expect(refused.headers.getSetCookie().some((line) => line.startsWith('bula_dashboard='))).toBe(false)
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303)
  })

  it('needs a secret key to make a link: a publishable key is refused', async () => {
    const { keys } = await signupMerchant(base)
    const refused = await call(base, 'POST', '/_sim/dashboard/login-links', { key: keys.publishable })
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('publishable_key_forbidden')
    expect((await call(base, 'POST', '/_sim/dashboard/login-links')).status).toBe(401)
  })

  it('keeps the token out of the request log', async () => {
    const { keys } = await signupMerchant(base)
    const link = await call(base, 'POST', '/_sim/dashboard/login-links', { key: keys.secret })
    const token = (link.body.url as string).split('/').at(-1)!
    await fetch(link.body.url as string, { redirect: 'manual' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(logLines.some((line) => line.startsWith('GET /dashboard/login/… 303'))).toBe(true)
    expect(logLines.join('\n')).not.toContain(token)
    expect(logLines.join('\n')).not.toContain(keys.secret)
  })

  // Refused, but the log line used to carry the key as typed into the address.
  it('keeps a key put into an address out of the log, and out of the merchant\'s request log', async () => {
    const { keys } = await signupMerchant(base)
    await fetch(`${base}/dashboard/sign-in?key=${keys.secret}`, { method: 'POST', redirect: 'manual' })
    await call(base, 'GET', `/v1/merchants/me?key=${keys.secret}&secret=whsec_abc123`, { key: keys.secret })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(logLines.filter((line) => line.startsWith('POST /dashboard/sign-in'))).toEqual([expect.stringMatching(/^POST \/dashboard\/sign-in\?key=sk_test_… 4\d\d /)])
    expect(logLines.join('\n')).not.toContain(keys.secret)
    expect(logLines.join('\n')).not.toContain('whsec_abc123')
    const logged = (await call(base, 'GET', '/_sim/logs', { key: keys.secret })).body.data as { path: string }[]
    expect(logged.map((entry) => entry.path)).toContain('/v1/merchants/me?key=sk_test_…&secret=whsec_…')
  })

  it('takes a secret key in a POSTed form with its own CSRF cookie; never in the address', async () => {
    const { keys } = await signupMerchant(base)
    const form = await fetch(`${base}/dashboard/sign-in`)
    const html = await form.text()
    expect(html).toMatch(/<form method="post" action="\/dashboard\/sign-in"/)
    expect(html).toContain('type="password"')
    const signInCookie = form.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard_sign_in='))!
    expect(signInCookie).toContain('HttpOnly; SameSite=Strict')
    const post = (fields: Record<string, string>, cookie = signInCookie.split(';')[0]!) =>
      fetch(`${base}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(fields).toString(),
      })
    const csrf = csrfOf(html)

    const noToken = await post({ key: keys.secret })
    expect(noToken.status).toBe(403)
    expect(noToken.headers.getSetCookie().some((line) => line.startsWith('bula_dashboard='))).toBe(false)
    expect((await post({ key: keys.secret, _csrf: csrf }, 'bula_dashboard_sign_in=other')).status).toBe(403)

    const publishable = await post({ key: keys.publishable, _csrf: csrf })
    expect(publishable.status).toBe(403)
    const publishablePage = await publishable.text()
    expect(publishablePage).toContain('That is a publishable key')
    expect(publishablePage).toContain('Error code: publishable_key_forbidden')
    const unknown = await post({ key: 'sk_test_nothere', _csrf: csrf })
    expect(unknown.status).toBe(401)
    const unknownPage = await unknown.text()
    expect(unknownPage).not.toContain('sk_test_nothere')
    expect(unknownPage).toContain('Error code: invalid_api_key')

    const signedIn = await post({ key: keys.secret, _csrf: csrf })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get('location')).toBe('/dashboard')
    expect(signedIn.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard='))).toMatch(/HttpOnly; SameSite=Strict$/)
  })

  it('signing out needs the form\'s token, then ends the session: the old cookie reads nothing', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const forged = await agent.post('/dashboard/sign-out', {})
    expect(forged.status).toBe(403)
    expect(forged.headers.getSetCookie()).toEqual([])
    expect((await agent.get('/dashboard')).status).toBe(200)
    const cookieBefore = (agent as unknown as { cookie: string }).cookie
    const out = await agent.submit('/dashboard', '/dashboard/sign-out')
    expect(out.status).toBe(303)
    expect(out.location).toBe('/dashboard/sign-in')
    const replay = await fetch(`${base}/dashboard`, { headers: { cookie: cookieBefore }, redirect: 'manual' })
    expect(replay.status).toBe(303)
    expect(replay.headers.get('location')).toBe('/dashboard/sign-in')
  })
})

describe('without a session', () => {
  it('no page is readable and no form does anything', async () => {
    const { merchant, keys, api, sessionId } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const pages = await crawl(agent)
    expect(pages.size).toBeGreaterThan(8)
    const anonymous = new DashboardAgent(base)
    for (const path of [...pages.keys(), `/dashboard/sessions/${sessionId}`, '/dashboard/no-such-page']) {
      const page = await anonymous.get(path)
      expect(page.status, path).toBe(303)
      expect(page.location, path).toBe('/dashboard/sign-in')
      expect(page.html, path).not.toContain(merchant.id)
    }
    const clockBefore = (await api.get('/_sim/clock')).body.offsetMs
    const actions = new Set([...pages.values()].flatMap((html) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!)))
    // Signing out without a session has nothing to end: it leads to the sign-in form.
    actions.delete('/dashboard/sign-out')
    expect((await anonymous.post('/dashboard/sign-out', {})).location).toBe('/dashboard/sign-in')
    expect(actions.size).toBeGreaterThan(3)
    for (const action of actions) {
      const refused = await anonymous.post(action, { duration: '1w' })
      expect(refused.status, action).toBe(403)
      expect(refused.html, action).toContain('You are signed out')
    }
    expect((await api.get('/_sim/clock')).body.offsetMs).toBe(clockBefore)
  })
})

describe('CSRF', () => {
  it('every form on every page carries the session\'s token', async () => {
    const { keys } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const pages = await crawl(agent)
    let forms = 0
    for (const [path, html] of pages) {
      const token = csrfOf(html)
      for (const [form] of html.matchAll(/<form method="post"[\s\S]*?<\/form>/g)) {
        forms += 1
        expect(form, `${path}: ${form.slice(0, 120)}`).toContain(`<input type="hidden" name="_csrf" value="${token}">`)
      }
      // GET forms (filters) change nothing and carry no token.
      for (const [form] of html.matchAll(/<form (?![^>]*method="post")[^>]*>/g)) expect(form, path).toContain('method="get"')
    }
    expect(forms).toBeGreaterThan(10)
  })

  it('a POST without the token, with another session\'s token, or from another origin changes nothing', async () => {
    const { keys, api } = await signupMerchant(base).then(({ keys }) => ({ keys, api: client(base, keys.secret) }))
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const other = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    const otherToken = csrfOf((await other.get('/dashboard')).html)
    const token = csrfOf((await agent.get('/dashboard')).html)
    const offset = async () => (await api.get('/_sim/clock')).body.offsetMs as number

    const forged: Record<string, string>[] = [{ duration: '1d' }, { duration: '1d', _csrf: '' }, { duration: '1d', _csrf: otherToken }, { duration: '1d', _csrf: token.slice(1) }]
    for (const fields of forged) {
      const refused = await agent.post('/dashboard/clock/advance', fields)
      expect(refused.status).toBe(403)
      expect(refused.html).toContain('This form has expired or did not come from the dashboard')
    }
    const crossSite = await agent.post('/dashboard/clock/advance', { duration: '1d', _csrf: token }, { origin: 'http://evil.example' })
    expect(crossSite.status).toBe(403)
    expect(await offset()).toBe(0)

    const accepted = await agent.post('/dashboard/clock/advance', { duration: '1d', _csrf: token }, { origin: base })
    expect(accepted.status).toBe(303)
    expect(await offset()).toBeGreaterThanOrEqual(86_400_000)
  })
})

describe('bad input', () => {
  it('every form answers junk with a message, never a 500', async () => {
    const { keys } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const pages = await crawl(agent)
    const token = csrfOf(pages.get('/dashboard')!)
    const actions = new Set([...pages.values()].flatMap((html) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!)))
    actions.delete('/dashboard/sign-out')
    // Multipart forms get a urlencoded body, and the other way round (first: the junk below revokes the signed-in key, which signs out).
    const wrongType = await agent.post('/dashboard/settings/verification', { _csrf: token, tin: '123' })
    expect(wrongType.status).toBe(400)
    const junk = { duration: '-1', mode: 'both', url: 'javascript:alert(1)', type: '<b>', endpointId: '../x', reason: '', displayName: '', invoiceNextNumber: '1e9', customerName: '<script>', dueDate: '31/12/2026', taxPercent: 'NaN' }
    for (const action of actions) {
      const answer = await agent.post(action, { _csrf: token, _back: '/dashboard', ...junk })
      expect(answer.status, action).not.toBe(500)
      expect(answer.html, action).not.toContain('Something went wrong in the simulator')
      if (answer.status === 303) {
        const shown = await agent.follow(answer)
        expect(shown.status, action).toBeLessThan(500)
        expect(shown.html, action).not.toContain('<script>')
      }
    }
  })

  // As on /v1, where a query the route does not declare is 400 invalid_request naming it: once the Payouts page did, the others ignored it.
  it.each([
    ['/dashboard/sessions', 'status=pending'],
    ['/dashboard/invoices', 'status=draft'],
    ['/dashboard/payouts', 'page=1'],
    ['/dashboard/events', 'type=checkout_session.succeeded'],
    ['/dashboard/events/rows', 'type=checkout_session.succeeded'],
    ['/dashboard/webhooks', ''],
    ['/dashboard/developers', ''],
    ['/dashboard/outbox', ''],
    ['/dashboard/faults', ''],
    ['/dashboard/doctor', 'since=1h'],
  ])('%s answers an unknown query parameter with a 400 page naming it, and takes its own (%s)', async (path, known) => {
    const { keys } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const refused = await agent.get(`${path}?${known === '' ? '' : `${known}&`}colour=blue`)
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/)
    expect(refused.html).toContain('Unknown query parameter `colour`.')
    expect((await agent.get(known === '' ? path : `${path}?${known}`)).status).toBe(200)
  })

  // /v1 answers a repeated parameter with 400 invalid_request naming it (its schema takes one value); the pages read
  // only a lone value, so `?status=pending&status=failed` showed the whole list as if no filter were given.
  it.each([
    ['/dashboard/sessions', 'status', 'pending'],
    ['/dashboard/sessions', 'limit', '5'],
    ['/dashboard/invoices', 'status', 'draft'],
    ['/dashboard/invoices', 'starting_after', '1'],
    ['/dashboard/payouts', 'page', '1'],
    ['/dashboard/events', 'type', 'checkout_session.succeeded'],
    ['/dashboard/events/rows', 'type', 'checkout_session.succeeded'],
    ['/dashboard/doctor', 'since', '1h'],
  ])('%s answers %s given twice with a 400 page naming it', async (path, name, value) => {
    const { keys } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const refused = await agent.get(`${path}?${name}=${value}&${name}=${value}`)
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/)
    expect(refused.html).toContain(`Invalid \`${name}\`: give it once, not 2 times.`)
    expect(refused.html).toContain('<code>invalid_request</code>')
  })

  it('names a repeated parameter before an unknown one, as /v1 does', async () => {
    const { keys, api } = await busyMerchant()
    const query = 'colour=blue&status=pending&status=failed'
    const v1 = await api.get(`/v1/checkout-sessions?${query}`)
    expect([v1.status, v1.body.error.code, v1.body.error.param]).toEqual([400, 'invalid_request', 'status'])
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const refused = await agent.get(`/dashboard/sessions?${query}`)
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('Invalid `status`: give it once, not 2 times.')
  })

  // /v1 judges the values of the parameters a route reads before the names it does not read: the dashboard named `colour` here.
  it('names a bad value before an unknown parameter, as /v1 does, and an unknown parameter before what only the service checks', async () => {
    const { keys, api } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    for (const [query, param, message] of [
      ['limit=abc&colour=blue', 'limit', 'Invalid `limit`'],
      ['colour=blue&status=lost', 'status', 'Invalid `status`'],
      // The cursor is the service's to judge, after the query's names, on both surfaces.
      ['cursor=nonsense&colour=blue', 'colour', 'Unknown query parameter `colour`.'],
    ] as const) {
      const v1 = await api.get(`/v1/checkout-sessions?${query}`)
      expect([v1.status, v1.body.error.code, v1.body.error.param], query).toEqual([400, 'invalid_request', param])
      const page = await agent.get(`/dashboard/sessions?${query}`)
      expect(page.status, query).toBe(400)
      expect(page.html, query).toContain(message)
      expect(page.html.includes('Unknown query parameter'), query).toBe(param === 'colour')
    }
  })

  it.each([
    ['/dashboard/invoices', 'status=lost', 'Choose a status'],
    ['/dashboard/invoices', 'starting_after=abc', 'Invalid `starting_after`'],
    ['/dashboard/payouts', 'page=0', 'Invalid `page`'],
    ['/dashboard/events', 'type=nope', 'Invalid `type`'],
    ['/dashboard/events/rows', 'limit=0', 'Invalid `limit`'],
    ['/dashboard/doctor', 'since=x', 'Invalid `since`'],
  ])('%s names the bad value of %s before an unknown parameter', async (path, bad, message) => {
    const agent = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    const alone = await agent.get(`${path}?${bad}`)
    const withUnknown = await agent.get(`${path}?colour=blue&${bad}`)
    expect(alone.status).toBe(400)
    expect(alone.html).toContain(message)
    expect(withUnknown.status).toBe(400)
    expect(withUnknown.html).toContain(message)
    expect(withUnknown.html).not.toContain('Unknown query parameter')
  })

  it('a form over its limit, or in another charset, gets the dashboard\'s error page in its layout, with the status and code', async () => {
    const agent = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    const large = await agent.post('/dashboard/settings', { displayName: 'x'.repeat(70_000) })
    expect(large.status).toBe(413)
    expect(large.headers.get('content-type')).toMatch(/^text\/html/)
    expect(large.html).toContain('<p>The body is larger than 64 KiB.</p>')
    expect(large.html).toContain('<code>payload_too_large</code>')
    expect(large.html).toContain('aria-current="page"')
    const utf7 = await agent.post('/dashboard/settings', { displayName: 'x' }, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-7' })
    expect([utf7.status, utf7.html.includes('<code>invalid_request</code>')]).toEqual([400, true])
    const undecodable = await agent.get('/dashboard/sessions/%E0%A4%A')
    expect([undecodable.status, undecodable.headers.get('content-type')?.startsWith('text/html')]).toEqual([400, true])
  })

  // The pages refused a query they do not read, while the stylesheet and the script took any.
  it('the stylesheet and the script take no query: the 400 page names it, signed in or not; the addresses the pages hold have none', async () => {
    const agent = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    const signInHtml = await (await fetch(`${base}/dashboard/sign-in`)).text()
    const referenced = new Set([signInHtml, (await agent.get('/dashboard')).html].flatMap((html) => [...html.matchAll(/(?:href|src)="(\/dashboard\/assets\/[^"]*)"/g)].map((m) => m[1]!)))
    expect([...referenced].sort()).toEqual(['/dashboard/assets/dashboard.css', '/dashboard/assets/dashboard.js'])
    for (const [asset, type] of [
      ['/dashboard/assets/dashboard.css', /^text\/css/],
      ['/dashboard/assets/dashboard.js', /^(text|application)\/javascript/],
    ] as const) {
      const served = await fetch(`${base}${asset}`)
      expect([served.status, served.headers.get('content-type')], asset).toEqual([200, expect.stringMatching(type)])
      // Never cached, so the pages need no version in its address, and none is taken.
      expect(served.headers.get('cache-control'), asset).toBe('no-store')
      for (const query of ['colour=blue', 'v=1']) {
        const name = query.split('=')[0]
        const anonymous = await fetch(`${base}${asset}?${query}`, { redirect: 'manual' })
        expect([anonymous.status, anonymous.headers.get('content-type')], asset).toEqual([400, expect.stringMatching(/^text\/html/)])
        // nosniff: a browser that asked for a stylesheet or a script applies neither this page nor anything else.
        expect(anonymous.headers.get('x-content-type-options'), asset).toBe('nosniff')
        const page = await anonymous.text()
        expect(page, asset).toContain(`Unknown query parameter \`${name}\`.`)
        expect(page, asset).toContain('<code>invalid_request</code>')
        const signedIn = await agent.get(`${asset}?${query}`)
        expect([signedIn.status, signedIn.html.includes(`Unknown query parameter \`${name}\`.`)], asset).toEqual([400, true])
      }
    }
  })

  // The pages refused a query they do not read, while every form's target took any and did its work.
  it('every form\'s target takes no query: the 400 page names it and nothing changes; the dashboard\'s own forms post none', async () => {
    const { keys, api, sessionId } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const pages = await crawl(agent)
    const token = csrfOf(pages.get('/dashboard')!)
    const forms = new Map([...pages.values()].flatMap((html) => [...html.matchAll(/<form method="post" action="([^"]+)" enctype="([^"]+)"/g)].map((m) => [m[1]!, m[2]!] as const)))
    expect(forms.size).toBeGreaterThan(10)
    expect([...forms.values()]).toContain('multipart/form-data')
    for (const action of [...forms.keys(), '/dashboard/sign-in']) expect(action).not.toContain('?')
    const signInForm = await (await fetch(`${base}/dashboard/sign-in`)).text()
    expect(signInForm).toContain('<form method="post" action="/dashboard/sign-in"')

    const before = (await api.get('/_sim/state')).body.collections
    const offset = (await api.get('/_sim/clock')).body.offsetMs
    // What each form would take, so that only the query stands between the post and the change.
    const fields = { _csrf: token, _back: '/dashboard', duration: '1d', mode: 'test', url: 'http://127.0.0.1:9/other', type: 'secret', displayName: 'Renamed', route: 'POST /v1/checkout-sessions', action: 'error' }
    for (const [action, enctype] of forms) {
      const target = `${action}?colour=blue`
      const refused = enctype === 'multipart/form-data' ? await agent.postMultipart(target, formData(fields)) : await agent.post(target, fields)
      expect(refused.status, action).toBe(400)
      expect(refused.headers.get('content-type'), action).toMatch(/^text\/html/)
      expect(refused.html, action).toContain('Unknown query parameter `colour`.')
      expect(refused.html, action).toContain('<code>invalid_request</code>')
    }
    expect((await api.get('/_sim/state')).body.collections).toEqual(before)
    expect((await api.get('/_sim/clock')).body.offsetMs).toBe(offset)
    expect((await api.get(`/v1/checkout-sessions/${sessionId}`)).body.status).toBe('succeeded')
    // Still signed in (the sign-out form was refused too), and the same forms without the query work.
    expect((await agent.get('/dashboard')).status).toBe(200)
    const advanced = await agent.post('/dashboard/clock/advance', fields)
    expect([advanced.status, advanced.location]).toEqual([303, '/dashboard'])
  })

  it('a form\'s target judges who posts before its query: signed out is 403, a forged form 403, and a refused query keeps the session', async () => {
    const { keys, api } = await signupMerchant(base).then(({ keys }) => ({ keys, api: client(base, keys.secret) }))
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const token = csrfOf((await agent.get('/dashboard')).html)
    const anonymous = await new DashboardAgent(base).post('/dashboard/clock/advance?colour=blue', { duration: '1d', _csrf: token })
    expect([anonymous.status, anonymous.html.includes('You are signed out')]).toEqual([403, true])
    const forged = await agent.post('/dashboard/clock/advance?colour=blue', { duration: '1d' })
    expect([forged.status, forged.html.includes('This form has expired or did not come from the dashboard')]).toEqual([403, true])
    expect((await api.get('/_sim/clock')).body.offsetMs).toBe(0)

    // Signing in with the right key and the form's own token: the query alone is refused, and no session starts.
    const form = await fetch(`${base}/dashboard/sign-in`)
    const signInCookie = form.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard_sign_in='))!.split(';')[0]!
    const signIn = await fetch(`${base}/dashboard/sign-in?colour=blue`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie },
      body: new URLSearchParams({ _csrf: csrfOf(await form.text()), key: keys.secret }).toString(),
      redirect: 'manual',
    })
    expect(signIn.status).toBe(400)
    expect(await signIn.text()).toContain('Unknown query parameter `colour`.')
    expect(signIn.headers.getSetCookie().some((line) => line.startsWith('bula_dashboard='))).toBe(false)

    const signOut = await agent.post('/dashboard/sign-out?colour=blue', { _csrf: token })
    expect([signOut.status, signOut.html.includes('Unknown query parameter `colour`.')]).toEqual([400, true])
    expect(signOut.headers.getSetCookie()).toEqual([])
    expect((await agent.get('/dashboard')).status).toBe(200)
  })

  it('a page that reads no query refuses one too; an unknown dashboard page with a query is still not found', async () => {
    const agent = await DashboardAgent.signIn(base, (await signupMerchant(base)).keys.secret)
    expect((await agent.get('/dashboard/settings?colour=blue')).status).toBe(400)
    expect((await agent.get('/dashboard/nowhere?colour=blue')).status).toBe(404)
  })
})

describe('keys and URLs', () => {
  it('no link, form, redirect or page holds a key; pages have no inline script and strict headers', async () => {
    const { keys } = await busyMerchant()
    const agent = await DashboardAgent.signIn(base, keys.secret)
    for (const [path, html] of await crawl(agent)) {
      expect(html, path).not.toContain(keys.secret)
      expect(html, path).not.toContain(keys.publishable)
      for (const [, url] of html.matchAll(/(?:href|src|action)="([^"]*)"/g)) expect(url, path).not.toMatch(/[sp]k_(test|live)_/)
      for (const [script] of html.matchAll(/<script[^>]*>/g)) expect(script, path).toMatch(/src="\/dashboard\/assets\/dashboard\.js"/)
    }
    const page = await agent.get('/dashboard')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'")
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('same-origin')
  })

  it('a merchant\'s own strings are escaped in the layout', async () => {
    const { keys } = await signupMerchant(base)
    await client(base, keys.secret).patch('/_sim/settings', { displayName: '<script>alert(1)</script> & Co' })
    const page = await (await DashboardAgent.signIn(base, keys.secret)).get('/dashboard')
    expect(page.html).not.toContain('<script>alert(1)')
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co')
  })
})

describe('test and live data', () => {
  it('a test merchant has no switch and cannot post one', async () => {
    const { keys } = await signupMerchant(base)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const before = await agent.get('/dashboard')
    expect(before.html).toContain('Test data')
    expect(before.html).not.toContain('Switch to live data')
    const refused = await agent.follow(await agent.submit('/dashboard', '/dashboard/mode', { mode: 'live' }))
    expect(refused.html).toContain('Live data appears once verification is approved')
    expect(refused.html).toContain('mode-badge-test')
  })

  it('once live mode is unlocked, a live key\'s session shows live data and switches; a test key\'s session never reaches it', async () => {
    const { keys } = await signupMerchant(base)
    const testAgent = await DashboardAgent.signIn(base, keys.secret)
    const live = await unlockLive(base, keys.secret)

    const hint = await testAgent.get('/dashboard')
    expect(hint.html).not.toContain('Switch to live data')
    expect(hint.html).toContain('Live data: sign in with a live key')
    const refused = await testAgent.follow(await testAgent.submit('/dashboard', '/dashboard/mode', { mode: 'live' }))
    expect(refused.html).toContain('Sign in with a live secret key')
    expect(refused.html).toContain('mode-badge-test')

    const liveAgent = await DashboardAgent.signIn(base, live.secret)
    const livePage = await liveAgent.get('/dashboard')
    expect(livePage.html).toContain('mode-badge-live')
    expect(livePage.html).toContain('Switch to test data')
    const toTest = await liveAgent.follow(await liveAgent.submit('/dashboard', '/dashboard/mode', { mode: 'test' }))
    expect(toTest.html).toContain('mode-badge-test')
    expect(toTest.html).toContain('Showing test data.')
    const back = await liveAgent.follow(await liveAgent.submit('/dashboard', '/dashboard/mode', { mode: 'live' }))
    expect(back.html).toContain('mode-badge-live')
  })
})
