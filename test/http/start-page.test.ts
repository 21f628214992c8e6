import { beforeAll, describe, expect, it } from 'vitest'
import { call, useTestServer } from '../helpers/http.js'

// Issue 14: someone who opens the base URL in a browser gets a start page; an API client still gets the JSON 404.

let base: string
const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

/** What Chromium sends for a page it navigates to. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

describe('GET /', () => {
  it('is a start page for a browser: the dashboard, /openapi.json, the docs, the base URL and how to get a key', async () => {
    const response = await fetch(`${base}/`, { headers: { accept: BROWSER_ACCEPT } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await response.text()
    for (const expected of [
      '<title>Bula simulator</title>',
      '<a href="/dashboard">Dashboard</a>',
      '<a href="/openapi.json">OpenAPI description</a>',
      'npx bula dashboard',
      '<code>README.md</code> and <code>docs/</code>',
      `Its API answers at <code>${base}</code>`,
      'npx bula merchants signup --email you@example.com',
      `curl -s -X POST ${base}/_sim/merchants`,
      `curl -s ${base}/v1/merchants/me -H "Authorization: Bearer sk_test_..."`,
      '<link rel="stylesheet" href="/dashboard/assets/dashboard.css">',
    ]) {
      expect(html, expected).toContain(expected)
    }
    expect((await fetch(`${base}/dashboard/assets/dashboard.css`)).status).toBe(200)
  })

  it.each([
    ['an API client', { accept: 'application/json' }],
    ['curl (*/*)', { accept: '*/*' }],
    ['no Accept at all', {}],
  ])('is the JSON not_found envelope for %s', async (_who, headers) => {
    const answer = await call(base, 'GET', '/', { headers })
    expect(answer.status).toBe(404)
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(answer.body).toEqual({ error: { code: 'not_found', message: 'No route GET /. The API is under /v1 and described at /openapi.json.' } })
  })

  it('is not part of /openapi.json, as the hosted pages are not', async () => {
    const document = (await call(base, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> }
    expect(Object.keys(document.paths)).not.toContain('/')
  })
})

describe('GET /favicon.ico', () => {
  it('answers 204, cached, rather than a 404 a browser would ask for on every visit', async () => {
    const response = await fetch(`${base}/favicon.ico`)
    expect(response.status).toBe(204)
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400')
    expect(await response.text()).toBe('')
  })
})
