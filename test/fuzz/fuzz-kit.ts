// Property-based fuzzing of the HTTP surface: every route the app declares,
// random bodies, queries and headers, and the rules every answer must keep.
import fc from 'fast-check'
import type { Router } from 'express'
import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { createApp } from '../../server/http/app.js'
import type { RunningServer } from '../../server/start.js'
import { call, PNG_DATA_URL, signupMerchant } from '../helpers/http.js'

export interface Route {
  method: string
  /** Express path with `:id` placeholders, e.g. `/v1/invoices/:id/send`. */
  path: string
}

interface Layer {
  rawPath?: string | string[]
  route?: { path: string | string[]; methods: Record<string, boolean> }
  handle?: Partial<Router>
}

/**
 * Every route of the app, read from its router stack rather than written
 * down here, so a route added later is fuzzed too. `router.all` shows up as
 * method `_all`, which the fuzz sends as a random method.
 */
export function listRoutes(server: RunningServer): Route[] {
  const app = createApp({ ctx: server.ctx, version: 'fuzz', log: () => {}, logRequests: false })
  const routes: Route[] = []
  const walk = (stack: Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        for (const path of [layer.route.path].flat()) {
          for (const method of Object.keys(layer.route.methods)) routes.push({ method: method.toUpperCase(), path: joinPath(prefix, path) })
        }
      } else if (layer.handle?.stack) {
        for (const mount of [layer.rawPath ?? '/'].flat()) walk(layer.handle.stack as Layer[], joinPath(prefix, mount))
      }
    }
  }
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '')
  return routes
}

const joinPath = (prefix: string, path: string): string => (path === '/' ? prefix || '/' : `${prefix}${path}`)

/** What a run needs to reach past validation: a merchant, its keys, and one object of each kind to point `:id` at. */
export interface Fixture {
  secret: string
  publishable: string
  ids: Record<IdKind, string>
}

type Tier = 'business' | 'individual'

const ID_KINDS = ['session', 'invoice', 'key', 'endpoint', 'event', 'payout'] as const
type IdKind = (typeof ID_KINDS)[number]

/**
 * Requests are generated before their run's fixture exists, so they name its
 * keys and ids with these tokens, replaced when the request is sent.
 */
const token = (name: string): string => `«${name}»`

/** A new merchant, so a fuzzed revoke, rotation or clock jump never spoils the runs after it (fuzzRoute reuses one only where its run left it untouched). */
export async function makeFixture(baseUrl: string, tier: Tier): Promise<Fixture> {
  const { keys } = await signupMerchant(baseUrl, tier)
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await call(baseUrl, 'POST', path, { key: keys.secret, body, headers })
    if (response.status >= 300) throw new Error(`fixture ${path}: ${response.status} ${JSON.stringify(response.body)}`)
    return response.body
  }
  const createSession = () => post('/v1/checkout-sessions', { amount: 1234, currency: 'FJD' }, { 'idempotency-key': randomUUID() })
  const session = await createSession()
  const paid = await createSession()
  await post(`/_sim/checkout-sessions/${paid.id}/pay`, { outcome: 'succeeded' })
  await call(baseUrl, 'PATCH', '/_sim/settings', { key: keys.secret, body: { payoutSchedule: 'manual' } })
  const { payout } = await post('/_sim/payouts/request', {})
  const events = await call(baseUrl, 'GET', '/_sim/events', { key: keys.secret })
  const { key } = await post('/v1/api-keys', { type: 'secret' })
  // Port 9 (discard) refuses at once: deliveries fail fast and go nowhere.
  const { endpoint } = await post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })
  const invoice =
    tier === 'business'
      ? await post('/v1/invoices', VALID_INVOICE, { 'idempotency-key': randomUUID() })
      : { id: 'none' }
  return {
    secret: keys.secret,
    publishable: keys.publishable,
    ids: { session: session.id, invoice: String(invoice.id), key: key.id, endpoint: endpoint.id, event: events.body.data[0].event_id, payout: payout.id },
  }
}

const VALID_INVOICE = { customerName: 'Mere Tuilagi', dueDate: '2031-05-01', items: [{ description: 'Masi print', quantity: 2, unitPrice: 4500 }] }

/** Which fixture id a route's `:id` names, from the collection in its path. */
function idKindOf(path: string): IdKind {
  if (path.includes('checkout-sessions') || path.startsWith('/pay')) return 'session'
  if (path.includes('invoices')) return 'invoice'
  if (path.includes('api-keys')) return 'key'
  if (path.includes('webhook-endpoints')) return 'endpoint'
  if (path.includes('events')) return 'event'
  return 'payout'
}

// ---- arbitraries ----

const printable = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength })
const anyText = (maxLength: number) => fc.oneof(fc.string({ maxLength }), fc.string({ unit: 'binary', maxLength }), fc.string({ unit: 'grapheme', maxLength }))

/** Values a field might plausibly get, and values it never should. */
const plausibleValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -2, max: 600_000 }),
  fc.constantFrom(0, 1, 499_999, 500_000, -1, 1e21, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 0.5, 12.345, -0),
  fc.constantFrom('FJD', 'USD', 'AUD', 'secret', 'publishable', 'test', 'live', 'business', 'individual', 'succeeded', 'failed', 'processing'),
  fc.constantFrom('card', 'mpaisa', 'mycash', 'manual', 'daily', 'weekly', 'INV-26', '2031-02-29', '2030-12-31', '123-456-789', 'a@b.fj'),
  fc.constantFrom('https://example.test/x', 'http://localhost:3000/ok', 'http://[::1]/', 'javascript:alert(1)', 'ftp://x', PNG_DATA_URL),
  anyText(40),
  fc.constant(null),
  fc.boolean(),
  fc.jsonValue({ maxDepth: 3 }),
)

const FIELDS = [
  'amount', 'currency', 'quote', 'successUrl', 'cancelUrl', 'metadata', 'customerEmail', 'expiresAt', 'customerName', 'dueDate', 'items',
  'taxLabel', 'taxPercent', 'vatNumber', 'type', 'mode', 'url', 'outcome', 'provider', 'ms', 'to', 'reason', 'tin', 'tinCardPhoto',
  'businessRegistration', 'personalId', 'USD', 'AUD', 'email', 'name', 'tier', 'displayName', 'invoicePrefix', 'invoiceNextNumber',
  'receiptsEnabled', 'payoutSchedule', 'payoutDestination', 'liveProviders', 'endpointId', 'seed', 'fail', 'duplicate', 'delay', 'delayMs',
  'reorder', 'reorderWindowMs', 'format', 'version', 'collections', '__proto__', 'constructor',
]

/** Known-good bodies, mutated: they get past the schema to the rules behind it. */
const TEMPLATES: Record<string, Record<string, unknown>> = {
  'POST /v1/checkout-sessions': { amount: 1500, currency: 'FJD', metadata: { order: '42' }, successUrl: 'https://example.test/ok' },
  'POST /v1/invoices': VALID_INVOICE,
  'POST /_sim/merchants': { email: 'fuzz@example.test', name: 'Fuzz Ltd', tier: 'business' },
  'POST /_sim/clock/advance': { ms: 86_400_000 },
  'PATCH /_sim/settings': { displayName: 'Fuzz', payoutSchedule: 'daily' },
  'POST /_sim/verification': { tin: '123456789', tinCardPhoto: PNG_DATA_URL, businessRegistration: PNG_DATA_URL },
  'POST /_sim/verification/reject': { reason: 'blurry' },
  'PUT /_sim/rates': { USD: '2.31', AUD: '1.47' },
  'POST /_sim/checkout-sessions/:id/pay': { outcome: 'succeeded', provider: 'mpaisa' },
  'POST /_sim/invoices/:id/pay': { outcome: 'failed' },
  'PATCH /_sim/invoices/:id': { customerName: 'Someone else', taxPercent: 12.5, taxLabel: 'VAT' },
  'POST /_sim/payouts/fail-next': { reason: 'account closed' },
  'PUT /_sim/webhook-faults': { seed: 7, fail: 0.5, duplicate: 0.1 },
  'POST /v1/api-keys': { type: 'publishable' },
  'POST /v1/webhook-endpoints': { url: 'http://localhost:9/x' },
  'POST /_sim/state/import': { format: 'bula-state', version: 1, collections: {} },
}

/** Mostly the template or one field of it changed, so most runs get past the schema to the rules behind it. */
function mutated(template: Record<string, unknown>): fc.Arbitrary<string> {
  const own = Object.keys(template)
  const withField = (field: string, value: unknown) => {
    const body: Record<string, unknown> = { ...template }
    // defineProperty, so `__proto__` becomes a field of the JSON rather than the object's prototype.
    Object.defineProperty(body, field, { value, enumerable: true, configurable: true, writable: true })
    return body
  }
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constant(template) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...own), plausibleValue).map(([field, value]) => withField(field, value)) },
      { weight: 1, arbitrary: fc.constantFrom(...own).map((field) => Object.fromEntries(Object.entries(template).filter(([name]) => name !== field))) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...FIELDS), plausibleValue).map(([field, value]) => withField(field, value)) },
    )
    .map((body) => JSON.stringify(body))
}

const nested = (depth: number) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`

/** A request body as raw text (or none): valid-ish JSON, wrong types, garbage, huge, deep. */
export function bodyArbitrary(route: Route): fc.Arbitrary<string | undefined> {
  // The key routes are mounted with and without /v1; one template serves both.
  const template = TEMPLATES[`${route.method} ${route.path.replace(/^\/(api-keys|webhook-endpoints)/, '/v1/$1')}`]
  return fc.oneof(
    { weight: template ? 6 : 0, arbitrary: template ? mutated(template) : fc.constant('{}') },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), plausibleValue, { maxKeys: 6 }).map((body) => JSON.stringify(body)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: anyText(200) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"amount":', '[1,2', 'null', '"x"', '{"a":1}{"b":2}', '\u0000', '{"amount":1e999}', '\uFEFF{}') },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 3_000 }).map(nested) },
    // Past the 1 MiB limit, and just under it.
    { weight: 1, arbitrary: fc.constantFrom(1_100_000, 1_000_000).map((size) => JSON.stringify({ metadata: { big: 'x'.repeat(size) } })) },
  )
}

/**
 * A generated value as query-string text. Objects go as JSON: String() throws
 * on an object whose generated keys shadow toString or valueOf.
 */
const asQueryValue = (value: unknown): string => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value))

const QUERY_KEYS = ['limit', 'cursor', 'status', 'from', 'to', 'type', 'starting_after', 'path', 'method', 'mode', 'x', 'limit[]', '__proto__']

export const queryArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(plausibleValue.map(asQueryValue), anyText(30), fc.constantFrom('', '-1', '101', '1.5', 'NaN', '4xx'))), { maxLength: 4 })
    .map((pairs) => new URLSearchParams(pairs).toString()),
  fc.constantFrom('a[b]=1', '%zz=1', 'limit=%E0%A4%A', '&&=&', 'limit=1&limit=2', 'cursor=' + 'A'.repeat(5_000)),
)

/** A path segment for `:id`: the fixture's own id most often, then one of another kind, random text, or broken escapes. */
function idArbitrary(kind: IdKind): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(token(kind)) },
    { weight: 2, arbitrary: fc.constantFrom(...ID_KINDS.map(token)) },
    { weight: 2, arbitrary: anyText(60).filter((text) => text.length > 0).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%', '%00', '..%2F..', 'x'.repeat(3_000), '0', '-1', '1e3', '999999999999999999999') },
  )
}

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16',
  'application/vnd.api+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '*/*', 'application/json; charset=',
]

/** The value in `tenths` of the runs, else no header. The value comes first: fast-check leans towards the first choice while it shrinks. */
const sometimes = <T>(tenths: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: tenths, arbitrary }, { weight: 10 - tenths, arbitrary: fc.constant(undefined) })

const SECRET = token('secret')

const authorizationArbitrary = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${SECRET}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(`Bearer ${token('publishable')}`, `bearer   ${SECRET}  `, `Bearer ${SECRET} extra`, 'Bearer', 'Basic dXNlcjpwYXNz', `Token ${SECRET}`),
  },
  { weight: 1, arbitrary: printable(80).map((text) => `Bearer ${text}`) },
  { weight: 1, arbitrary: printable(80) },
)

// Mostly what a client sends, so that runs get past the headers to the body and the rules.
const headersArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .record({
    authorization: authorizationArbitrary,
    'idempotency-key': sometimes(8, fc.oneof({ weight: 6, arbitrary: fc.uuid() }, fc.constant(''), printable(300), fc.constant('k'.repeat(256)))),
    'content-type': sometimes(9, fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES), printable(40))),
    'content-encoding': sometimes(1, fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x-unknown')),
    'last-event-id': sometimes(1, printable(40)),
    accept: sometimes(1, fc.constantFrom('text/html', 'application/xml', '*/*')),
  })
  .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>)

export interface FuzzRequest {
  method: string
  path: string
  query: string
  headers: Record<string, string>
  body: string | undefined
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export function requestArbitrary(route: Route): fc.Arbitrary<FuzzRequest> {
  const method = route.method === '_ALL' ? fc.constantFrom(...OTHER_METHODS) : fc.constant(route.method)
  const segments = route.path.split('/').map((segment) => (segment.startsWith(':') ? idArbitrary(idKindOf(route.path)) : fc.constant(segment)))
  return fc
    .record({ method, segments: fc.tuple(...segments), query: queryArbitrary, headers: headersArbitrary, body: bodyArbitrary(route) })
    .map(({ method, segments, query, headers, body }) => ({
      method,
      path: segments.join('/'),
      query,
      headers,
      // fetch sends no body with GET; such a request is a GET without one.
      body: method === 'GET' ? undefined : body,
    }))
}

/**
 * Sends the request and checks the answer: never a 5xx, JSON on every
 * route but the PDF and the event streams, and the error envelope on every
 * non-2xx. A stream that opens is closed at once. Answers the status.
 */
export async function sendAndCheck(baseUrl: string, generated: FuzzRequest, fixture: Fixture): Promise<number> {
  const request = withFixture(generated, fixture)
  const url = `${baseUrl}${request.path}${request.query ? `?${request.query}` : ''}`
  const abort = new AbortController()
  const response = await fetch(url, { method: request.method, headers: request.headers, body: request.body, signal: abort.signal })
  const contentType = response.headers.get('content-type') ?? ''
  const what = `${request.method} ${request.path} → ${response.status} ${contentType}`
  expect(response.status, what).toBeLessThan(500)
  if (contentType.startsWith('text/event-stream')) {
    expect(response.status, what).toBe(200)
    abort.abort()
    return response.status
  }
  const bytes = Buffer.from(await response.arrayBuffer())
  if (response.ok && contentType === 'application/octet-stream') {
    expect(bytes.subarray(0, 5).toString(), what).toBe('%PDF-')
    return response.status
  }
  if (request.method === 'OPTIONS' && response.ok) return response.status
  expect(contentType, what).toMatch(/^application\/json/)
  const body = JSON.parse(bytes.toString('utf8'))
  if (!response.ok) {
    expect(typeof body?.error?.code, `${what}: ${bytes}`).toBe('string')
    expect(typeof body?.error?.message, `${what}: ${bytes}`).toBe('string')
  }
  return response.status
}

function withFixture(request: FuzzRequest, fixture: Fixture): FuzzRequest {
  const values: Record<string, string> = { secret: fixture.secret, publishable: fixture.publishable, ...fixture.ids }
  const fill = (text: string): string => text.replace(/«(\w+)»/g, (whole, name: string) => values[name] ?? whole)
  return {
    ...request,
    path: fill(request.path),
    headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, fill(value)])),
  }
}

const tierArbitrary = fc.oneof({ weight: 3, arbitrary: fc.constant('business' as const) }, { weight: 1, arbitrary: fc.constant('individual' as const) })

/**
 * Whether a request left its fixture as it found it: the service refused it
 * (a 4xx changes no state; the per-key create counts it leaves stay far
 * below the limits in one route's runs), or it was a GET, and any
 * Idempotency-Key it sent was a fresh UUID (one of the literal keys could be
 * answered from a record the next time). Such a fixture serves the next run
 * as if it were new.
 */
function leftUntouched(request: FuzzRequest, status: number): boolean {
  const key = request.headers['idempotency-key']
  return (status >= 400 || request.method === 'GET') && (key === undefined || UUID.test(key))
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * `numRuns` random requests to one route, each against a merchant as new:
 * one of its own, or the one the previous run of its tier left untouched.
 * Making a fixture is ten requests and most fuzzed requests are refused, so
 * this took the two fuzz files from 42 to 19 s (docs/performance.md)
 * without changing what a run meets.
 */
export async function fuzzRoute(baseUrl: string, route: Route, numRuns: number): Promise<void> {
  const untouched = new Map<Tier, Fixture>()
  await fc.assert(
    fc.asyncProperty(tierArbitrary, requestArbitrary(route), async (tier, request) => {
      const fixture = untouched.get(tier) ?? (await makeFixture(baseUrl, tier))
      untouched.delete(tier)
      // A run that fails keeps its fixture out of the pool: fast-check's shrinking starts from new ones.
      if (leftUntouched(request, await sendAndCheck(baseUrl, request, fixture))) untouched.set(tier, fixture)
    }),
    { numRuns },
  )
}
