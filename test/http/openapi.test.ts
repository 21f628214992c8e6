import type { Express } from 'express'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { signupRequestSchema } from '../../src/schemas/index.js'
import { EXAMPLES } from '../../src/schemas/examples.js'
import { createApp } from '../../server/http/app.js'
import { openApiDocument, type OpenApiDocument } from '../../server/http/openapi.js'
import { appRoutes } from '../../server/http/openapi-routes.js'
import { call, signupMerchant, useTestServer } from '../helpers/http.js'

/** The hosted checkout and invoice pages and the dashboard answer HTML to browsers; the document leaves them out (docs/openapi.md). */
const HOSTED_PAGES = ['/pay', '/i', '/dashboard']
/** So are the start page and the favicon at the root (docs/openapi.md). */
const ROOT_PAGES = ['GET /', 'GET /favicon.ico']

/** What `router.all()` answers for: the methods a path does not declare. */
const ALL_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE']

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON; tests walk it freely
type Json = any

let document: Json

const newApp = (): Express => createApp({ ctx: server().ctx, version: server().version, log: () => {}, logRequests: false })

const server = useTestServer()
beforeAll(async () => {
  const response = await call(server().baseUrl, 'GET', '/openapi.json')
  expect(response.status).toBe(200)
  document = response.body
})

/** `METHOD /path` (OpenAPI syntax) for every route the app would dispatch to, hosted pages aside. */
function expressOperations(app: Express): string[] {
  return appRoutes(app)
    .filter((route) => !HOSTED_PAGES.includes(route.prefix))
    .flatMap(({ path, methods }) => {
      const openApiPath = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
      const answered = methods.flatMap((method) => (method === '*' ? ALL_METHODS : method === 'HEAD' && methods.includes('GET') ? [] : [method]))
      return answered.map((method) => `${method} ${openApiPath}`)
    })
    .filter((operation) => !ROOT_PAGES.includes(operation))
}

function documentedOperations(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  )
}

/** Every operation of the document with its path and method, for checks that call them. */
function operations(): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  )
}

/** The target of a local `$ref` (`#/components/...`), or undefined. */
const resolve = (ref: string): Json =>
  ref
    .slice(2)
    .split('/')
    .reduce<Json>((node, segment) => node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')], document)

/** A concrete URL for a documented path: ids that match nothing. */
const probeUrl = (path: string): string => path.replace(/\{[^}]+\}/g, 'openapi_probe')

describe('GET /openapi.json', () => {
  it('serves an OpenAPI 3.1 document without a key', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/)
    expect(document.info).toMatchObject({ title: expect.any(String), version: server().version })
  })

  it('documents every route Express has, and no route it lacks', () => {
    const actual = expressOperations(newApp())
    const documented = documentedOperations(document)
    expect(actual.filter((operation) => !documented.includes(operation))).toEqual([])
    expect(documented.filter((operation) => !actual.includes(operation))).toEqual([])
    // The API with and without /v1, the simulator surface, the document itself; never the HTML pages.
    for (const operation of [
      'POST /v1/checkout-sessions',
      'GET /v1/invoices/{id}/pdf',
      'GET /api-keys',
      'GET /v1/api-keys',
      'POST /webhook-endpoints/{id}/rotate',
      'DELETE /v1/webhook-endpoints/{id}',
      'POST /_sim/clock/advance',
      'POST /_sim/state/import',
      'GET /openapi.json',
    ]) {
      expect(documented).toContain(operation)
    }
    expect(documented.filter((operation) => /^\w+ \/(pay|i|dashboard)\//.test(operation))).toEqual([])
  })

  it('fails for a route added without a spec', () => {
    const app = newApp()
    app.post('/_sim/undocumented', (_req, res) => {
      res.json({})
    })
    const documented = documentedOperations(openApiDocument(app, server().version))
    expect(expressOperations(app).filter((operation) => !documented.includes(operation))).toEqual(['POST /_sim/undocumented'])
  })

  it('resolves every $ref, names each operation once and declares every path parameter', () => {
    const unresolved: string[] = []
    const visit = (value: Json): void => {
      if (Array.isArray(value)) value.forEach(visit)
      else if (typeof value === 'object' && value !== null) {
        for (const [key, inner] of Object.entries(value)) {
          if (key !== '$ref') visit(inner)
          else if (typeof inner !== 'string' || !inner.startsWith('#/') || resolve(inner) === undefined) unresolved.push(String(inner))
        }
      }
    }
    visit(document)
    expect(unresolved).toEqual([])

    const ids = operations().map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { path, operation } of operations()) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1])
      const declared = (operation.parameters ?? []).filter((parameter: Json) => parameter.in === 'path').map((parameter: Json) => parameter.name)
      expect(declared, path).toEqual(inPath)
    }
  })

  it('types an Invoice\'s path id as the spec does, an integer, and every other id as a string', () => {
    for (const { path, operation } of operations()) {
      for (const parameter of (operation.parameters ?? []).filter((p: Json) => p.in === 'path')) {
        const expected = /invoices\/\{id\}/.test(path) ? 'integer' : 'string'
        expect(parameter.schema.type, `${path} {${parameter.name}}`).toBe(expected)
        if (parameter.example !== undefined) expect(typeof parameter.example, path).toBe(expected === 'integer' ? 'number' : 'string')
      }
    }
  })

  it('gives every operation a summary, a description, security, one success response and enveloped errors', () => {
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`
      expect(operation.summary, where).toEqual(expect.any(String))
      expect(operation.description, where).toMatch(/^[A-Z`].{20,}/)
      expect(Array.isArray(operation.security), where).toBe(true)
      const statuses = Object.keys(operation.responses)
      expect(statuses.filter((status) => status.startsWith('2')).length, where).toBeLessThanOrEqual(1)
      expect(statuses, where).toContain('500')
      for (const status of statuses.filter((code) => !code.startsWith('2'))) {
        const schema = resolve(operation.responses[status].$ref).content['application/json'].schema
        expect(schema.allOf[0], where).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' })
        expect(schema.allOf[1].properties.error.properties.code.enum.length, where).toBeGreaterThan(0)
      }
    }
  })
})

describe('the schemas are the zod schemas', () => {
  it('describes CreateCheckoutSessionRequest with its limits and strictness', () => {
    const schema = document.components.schemas.CreateCheckoutSessionRequest
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.amount).toMatchObject({ type: 'integer', minimum: 1, maximum: 499999 })
    expect(schema.properties.quote.additionalProperties).toBe(false)

    const create = document.paths['/v1/checkout-sessions'].post
    expect(create.requestBody).toEqual({
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/CreateCheckoutSessionRequest' }, example: EXAMPLES.createCheckoutSessionRequestSchema },
      },
    })
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CheckoutSession' })
    expect(create.security).toEqual([{ secretKey: [] }, { publishableKey: [] }])
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }))
    expect(resolve(create.responses['409'].$ref).content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual([
      'idempotency_key_reused',
      'live_mode_unavailable',
      'quote_unavailable_in_live_mode',
    ])
    expect(resolve(create.responses['429'].$ref).headers).toHaveProperty('Retry-After')
  })

  it('turns query schemas into query parameters', () => {
    const list = document.paths['/v1/checkout-sessions'].get
    expect(list.parameters.map((parameter: Json) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['limit', 'query', false],
      ['cursor', 'query', false],
      ['status', 'query', false],
      ['from', 'query', false],
      ['to', 'query', false],
    ])
    expect(list.parameters[2].schema).toEqual({ $ref: '#/components/schemas/SessionStatus' })
  })

  it('is z.toJSONSchema of the exported schema, named parts referred to', () => {
    const inlined = (value: Json): Json => {
      if (Array.isArray(value)) return value.map(inlined)
      if (typeof value !== 'object' || value === null) return value
      if (typeof value.$ref === 'string') return inlined(document.components.schemas[value.$ref.replace('#/components/schemas/', '')])
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, inlined(inner)]))
    }
    const { $schema: _dialect, ...signup } = z.toJSONSchema(signupRequestSchema, { io: 'input' })
    expect(document.components.schemas.SignupRequest.properties.tier).toEqual({ $ref: '#/components/schemas/Tier' })
    expect(inlined(document.components.schemas.SignupRequest)).toEqual({ ...signup, examples: [EXAMPLES.signupRequestSchema] })
  })

  it('documents the read-only Payouts\' other methods as 405 with Allow', () => {
    const post = document.paths['/v1/payouts/{id}'].post
    expect(Object.keys(post.responses)).toContain('405')
    expect(resolve(post.responses['405'].$ref).headers).toHaveProperty('Allow')
  })
})

describe('the document matches what the routes do', () => {
  it('asks for the key each route asks for', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`
      const anonymous = await call(server().baseUrl, method, probeUrl(path))
      if (operation.security.length === 0) {
        expect(anonymous.status, where).not.toBe(401)
        continue
      }
      expect(anonymous.body.error?.code, where).toBe('missing_api_key')
      const publishable = await call(server().baseUrl, method, probeUrl(path), { key: keys.publishable })
      const takesPublishable = operation.security.some((scheme: Json) => 'publishableKey' in scheme)
      expect(publishable.body.error?.code === 'publishable_key_forbidden', where).toBe(!takesPublishable)
    }
  })

  it('needs Idempotency-Key, 1 to 255 characters, where the document says so', async () => {
    const { keys } = await signupMerchant(server().baseUrl, 'business')
    const idempotent = operations().filter(({ operation }) =>
      (operation.parameters ?? []).some((parameter: Json) => parameter.name === 'Idempotency-Key'),
    )
    expect(idempotent.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /v1/checkout-sessions',
      'POST /v1/invoices',
      'POST /v1/invoices/{id}/send',
      'POST /v1/invoices/{id}/void',
    ])
    for (const { method, path } of idempotent) {
      for (const headers of [{}, { 'Idempotency-Key': 'k'.repeat(256) }] as Record<string, string>[]) {
        const response = await call(server().baseUrl, method, probeUrl(path), { key: keys.secret, headers })
        expect(response.status, `${method} ${path}`).toBe(400)
        expect(response.body.error.param, `${method} ${path}`).toBe('Idempotency-Key')
      }
    }
  })
})
