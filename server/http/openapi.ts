import { Router, type Express } from 'express'
import { z } from 'zod'
import * as schemas from '../../src/schemas/index.js'
import { EXAMPLES } from '../../src/schemas/examples.js'
import { ERROR_CODES, statusesOf, type ErrorCode, type ResponseHeader } from '../domain/error-catalog.js'
import type { ServiceContext } from '../context.js'
import { apiRouter, apiRoutes } from './api-route.js'
import {
  faultsApply,
  joinPaths,
  mountedRouters,
  openApiPath,
  specsOf,
  type HttpMethod,
  type OtherMethodsSpec,
  type RouteAuth,
  type RouteSpec,
} from './openapi-routes.js'

type JsonSchema = z.core.JSONSchema.JSONSchema
type JsonObject = Record<string, unknown>

export interface OpenApiDocument {
  openapi: '3.1.0'
  info: { title: string; version: string; description: string; license: { name: string; identifier: string }; contact: { name: string; url: string } }
  servers: { url: string; description: string }[]
  tags: { name: string; description: string }[]
  paths: Record<string, Partial<Record<HttpMethod, JsonObject>>>
  components: {
    schemas: Record<string, JsonSchema>
    responses: Record<string, JsonObject>
    securitySchemes: JsonObject
    headers: JsonObject
  }
}

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

/**
 * Every zod schema src/schemas exports, named after its export:
 * `createCheckoutSessionRequestSchema` is `CreateCheckoutSessionRequest`.
 * Exporting a schema is what names it, so no list of names can go stale.
 */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>()
  for (const [name, value] of Object.entries(schemas)) {
    if (value instanceof z.ZodType && name.endsWith('Schema')) names.set(value, `${name[0]!.toUpperCase()}${name.slice(1, -'Schema'.length)}`)
  }
  return names
}

/**
 * The JSON Schema of every named schema, referring to each other by name.
 * The input side throughout: request bodies and query strings are what the
 * route parses, and for responses it is what a client may accept, while the
 * output side would close every response object (additionalProperties
 * false) against the additive fields a response may gain (docs/simulator.md).
 */
function componentSchemas(names: Map<z.ZodType, string>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>()
  for (const [schema, id] of names) registry.add(schema, { id })
  const converted = z.toJSONSchema(registry, { io: 'input', uri: (id) => schemaRef(id).$ref! }).schemas
  // toJSONSchema keeps only the id of a registry's metadata, so the example is added here.
  return Object.fromEntries(
    Object.entries(converted).map(([id, schema]) => {
      const example = exampleOf(id)
      return [id, { ...withoutDialect(schema), ...(example === undefined ? {} : { examples: [example] }) }]
    }),
  )
}

interface Components {
  names: Map<z.ZodType, string>
  jsonSchemas: Record<string, JsonSchema>
}

/**
 * The named schemas and their JSON Schemas, made on first use and then kept:
 * they follow from src/schemas alone, so every server of a process (a test
 * suite starts dozens) shares them instead of converting every schema again,
 * about 50 ms of CPU a server. The documents only read them.
 */
let components: Components | undefined
function sharedComponents(): Components {
  if (!components) {
    const names = namedSchemas()
    components = { names, jsonSchemas: componentSchemas(names) }
  }
  return components
}

/** The recorded example of a named schema (src/schemas/examples.ts), if it has one. */
const exampleOf = (name: string): unknown => (EXAMPLES as Record<string, unknown>)[`${name[0]!.toLowerCase()}${name.slice(1)}Schema`]

/** A JSON media type of a named schema, with its example for tools that read only the media type's (Dredd, Prism, Swagger UI). */
function jsonContent(name: string): JsonObject {
  const example = exampleOf(name)
  return { 'application/json': { schema: schemaRef(name), ...(example === undefined ? {} : { example }) } }
}

/** OpenAPI 3.1 has its own dialect, and a component's `$id` would change how its `$ref`s resolve. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema
  return rest
}

/** A schema built here from catalog values (error codes, header shapes), still through zod. */
const jsonOf = (schema: z.ZodType): JsonSchema => withoutDialect(z.toJSONSchema(schema, { io: 'input' }))

const RESPONSE_HEADERS: Record<ResponseHeader, { description: string; schema: z.ZodType }> = {
  'X-Request-Id': { description: 'The request id (`req_…`), also in the log line and the request log.', schema: z.string() },
  'Idempotent-Replayed': {
    description: 'Present on a stored answer replayed for a repeated Idempotency-Key.',
    schema: z.literal('true'),
  },
  'Retry-After': { description: 'Seconds until the next one-minute window on the merchant\'s clock.', schema: z.string().regex(/^[0-9]+$/) },
  Allow: { description: 'The methods the path takes.', schema: z.string() },
  'WWW-Authenticate': {
    description: 'The challenge of a 401 (RFC 9110, RFC 6750): `Bearer realm="bula"`, with `error="invalid_token"` for a key that did not authenticate.',
    schema: z.string().startsWith('Bearer '),
  },
}

const headerRefs = (names: readonly ResponseHeader[]): JsonObject =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))

/** `Idempotency-Key` as idempotencyKeyOf() (server/http/validate.ts) reads it; the OpenAPI test checks both ends. */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description: 'Makes a retry safe: the same key and request within 24 hours (merchant clock) answers the stored result.',
  schema: jsonOf(z.string().min(1).max(255)),
}

const SECURITY: Record<RouteAuth, JsonObject[]> = {
  none: [],
  secret: [{ secretKey: [] }],
  'secret-or-publishable': [{ secretKey: [] }, { publishableKey: [] }],
}

/** An id of each resource a path names, from the recorded examples, so a tool that calls the documented paths has one to fill in. */
const ID_EXAMPLES: Record<string, string | number | undefined> = {
  'checkout-sessions': EXAMPLES.checkoutSessionSchema?.id,
  invoices: EXAMPLES.invoiceSchema?.id,
  payouts: EXAMPLES.payoutSchema?.id,
  'api-keys': EXAMPLES.createApiKeyResponseSchema?.key.id,
  'webhook-endpoints': EXAMPLES.webhookEndpointResponseSchema?.endpoint.id,
  events: EXAMPLES.eventWithDeliveriesSchema?.event.event_id,
  faults: EXAMPLES.apiFaultResponseSchema?.fault.id,
}

/** An Invoice's id is an integer (spec, "GET /v1/invoices/{id}: path `id` integer"); every other id a prefixed string. */
const idSchema = (resource: string | undefined): JsonObject => jsonOf(resource === 'invoices' ? z.number().int().min(1) : z.string().min(1))

/** The path's parameters; each `{id}` with an example id of the resource named before it. */
function pathParameters(path: string, names: readonly string[]): JsonObject[] {
  return names.map((name) => {
    const resource = new RegExp(`([a-z-]+)/\\{${name}\\}`).exec(path)?.[1]
    const example = resource === undefined ? undefined : ID_EXAMPLES[resource]
    return { name, in: 'path', required: true, schema: idSchema(resource), ...(example === undefined ? {} : { example }) }
  })
}

const operationId = (method: string, path: string): string =>
  method + path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((word) => `${word[0]!.toUpperCase()}${word.slice(1)}`).join('')

/** Every tag the paths use, with what it groups; a path whose tag is missing here fails the OpenAPI test. */
const TAGS: Record<string, string> = {
  'checkout-sessions': 'Checkout Sessions: create, list, get and cancel (spec, "Checkout Sessions").',
  invoices: 'Invoices of business accounts: drafts, send, void and the PDF (spec, "Invoices").',
  payouts: 'Payouts, read-only: they come from settlement runs (spec, "Merchant and Payouts").',
  merchants: 'The calling merchant (spec, "Merchant and Payouts").',
  'api-keys': 'API keys of the key\'s mode, with or without `/v1` (spec, "API keys").',
  'webhook-endpoints': 'Webhook endpoints of the key\'s mode, with or without `/v1` (spec, "Webhook endpoints").',
  _sim: 'The simulator-only surface: signup, the merchant\'s clock, the customer and dashboard stand-ins, events and logs (docs/simulator.md).',
  'openapi.json': 'This document.',
}

/** The resource a path is about, with or without `/v1`: `api-keys`, `invoices`, `_sim`. */
const tagOf = (path: string): string => {
  const [first, second] = path.split('/').filter(Boolean)
  return (first === 'v1' ? second : first) ?? path
}

const CATALOG_ORDER = Object.keys(ERROR_CODES) as ErrorCode[]

/** What every route of its kind can answer; the spec adds the route's own codes (docs/openapi.md). */
function commonErrors(method: HttpMethod, auth: RouteAuth, findsById: boolean, writes: boolean, faults = false): ErrorCode[] {
  // Every route sits behind the Host check (server/http/host-check.ts) and Node's parser and timers (server/http/client-error.ts).
  const codes: ErrorCode[] = ['invalid_request', 'host_not_allowed', 'request_timeout', 'headers_too_large', 'internal_error']
  if (auth !== 'none') codes.push('missing_api_key', 'invalid_api_key')
  // The merchant's own `error` faults (POST /_sim/faults), at the status each was set with.
  if (faults) codes.push('injected_fault')
  if (auth === 'secret') codes.push('publishable_key_forbidden')
  if (findsById) codes.push('not_found')
  // 413 is listed where a client sends a body; handle() commits every write before answering, hence 503.
  if (method !== 'get') codes.push('payload_too_large', 'unsupported_media_type')
  if (writes) codes.push('storage_unavailable')
  return codes
}

/** The error envelope with `code` narrowed to `codes`, all of one status. */
function errorResponse(codes: readonly ErrorCode[]): JsonObject {
  const headers = new Set<ResponseHeader>(['X-Request-Id'])
  for (const code of codes) for (const header of ERROR_CODES[code].headers ?? []) headers.add(header)
  const narrowed = jsonOf(z.object({ error: z.object({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]) }) }))
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].when}.`).join('\n\n'),
    headers: headerRefs([...headers]),
    content: { 'application/json': { schema: { allOf: [schemaRef('ErrorEnvelope'), narrowed] } } },
  }
}

const STATUS_TEXT = { 200: 'OK', 201: 'Created' } as const

class DocumentBuilder {
  readonly paths: OpenApiDocument['paths'] = {}
  /** Error responses by their codes joined with `.`: most routes share them, so each is written once. */
  readonly responses: Record<string, JsonObject> = {}
  private readonly components = sharedComponents()

  private nameOf(schema: z.ZodType, where: string): string {
    const name = this.components.names.get(schema)
    if (!name) throw new Error(`${where}: its schema is not an export of src/schemas; export it there so the document can name it.`)
    return name
  }

  private queryParameters(query: z.ZodType, where: string): JsonObject[] {
    const json = this.components.jsonSchemas[this.nameOf(query, where)]!
    const required = new Set(json.required ?? [])
    return Object.entries(json.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }))
  }

  /** One response per status, each a reference to the shared response for its codes. */
  private errorResponses(codes: readonly ErrorCode[]): Record<string, JsonObject> {
    const byStatus = new Map<number, ErrorCode[]>()
    for (const code of CATALOG_ORDER.filter((known) => codes.includes(known))) {
      for (const status of statusesOf(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code])
    }
    return Object.fromEntries(
      [...byStatus].map(([status, statusCodes]) => {
        const name = statusCodes.join('.')
        this.responses[name] ??= errorResponse(statusCodes)
        return [String(status), { $ref: `#/components/responses/${name}` }]
      }),
    )
  }

  private pathItem(path: string): Partial<Record<HttpMethod, JsonObject>> {
    this.paths[path] ??= {}
    return this.paths[path]
  }

  addRoute(prefix: string, spec: RouteSpec): void {
    const { path, params } = openApiPath(joinPaths(prefix, spec.path))
    const where = `${spec.method.toUpperCase()} ${path}`
    const parameters = pathParameters(path, params)
    if (spec.query) parameters.push(...this.queryParameters(spec.query, where))
    if (spec.idempotencyKey) parameters.push(IDEMPOTENCY_KEY_PARAMETER)
    const status = 'body' in spec.response ? (spec.response.status ?? 200) : 200
    const success =
      'body' in spec.response
        ? {
            description: STATUS_TEXT[status],
            headers: headerRefs(spec.idempotencyKey ? ['X-Request-Id', 'Idempotent-Replayed'] : ['X-Request-Id']),
            content: jsonContent(this.nameOf(spec.response.body, where)),
          }
        : {
            description: spec.response.description,
            headers: headerRefs(['X-Request-Id']),
            // The spec serves the PDF as octet-stream: binary, described as such; a stream is text.
            content: { [spec.response.contentType]: { schema: spec.response.contentType === 'application/octet-stream' ? { type: 'string', format: 'binary' } : { type: 'string' } } },
          }
    const errors = [...commonErrors(spec.method, spec.auth, params.length > 0, spec.method !== 'get', faultsApply(spec)), ...(spec.errors ?? [])]
    this.pathItem(path)[spec.method] = {
      operationId: operationId(spec.method, path),
      summary: spec.summary,
      description: spec.description,
      tags: [tagOf(path)],
      security: SECURITY[spec.auth],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(spec.body
        ? {
            requestBody: {
              // parseWith() reads a missing body as `{}`, so the body may be left out exactly when `{}` passes.
              required: !spec.body.safeParse({}).success,
              content: jsonContent(this.nameOf(spec.body, where)),
            },
          }
        : {}),
      responses: { [String(status)]: success, ...this.errorResponses(errors) },
    }
  }

  /** After every declared route: the methods `router.all()` catches are those the path does not declare. */
  addOtherMethods(prefix: string, spec: OtherMethodsSpec): void {
    const { path, params } = openApiPath(joinPaths(prefix, spec.path))
    const item = this.pathItem(path)
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      if (item[method]) continue
      item[method] = {
        operationId: operationId(method, path),
        summary: spec.summary,
        description: `Not a method of this path: 405 with \`Allow\` naming those it takes.`,
        tags: [tagOf(path)],
        security: SECURITY[spec.auth],
        ...(params.length > 0 ? { parameters: pathParameters(path, params) } : {}),
        // The catch-all looks nothing up and writes nothing: no 404, no 503.
        responses: this.errorResponses([...commonErrors(method, spec.auth, false, false), ...spec.errors]),
      }
    }
  }

  /** Only the schemas the paths and responses use, with those they refer to. */
  usedSchemas(): Record<string, JsonSchema> {
    const used = new Set<string>()
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit)
      else if (typeof value === 'object' && value !== null) {
        for (const [key, inner] of Object.entries(value)) {
          const name = key === '$ref' && typeof inner === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(inner)?.[1] : undefined
          if (name === undefined) visit(inner)
          else if (!used.has(name)) {
            used.add(name)
            visit(this.components.jsonSchemas[name])
          }
        }
      }
    }
    visit([this.paths, this.responses])
    return Object.fromEntries([...used].sort().map((name) => [name, this.components.jsonSchemas[name]!]))
  }
}

/** The document for every route declared through declareRoute(), at the paths the app mounts them. */
export function openApiDocument(app: Express, version: string, baseUrl?: string): OpenApiDocument {
  const builder = new DocumentBuilder()
  const routers = mountedRouters(app)
  for (const { prefix, router } of routers) for (const spec of specsOf(router)) if (spec.method !== 'all') builder.addRoute(prefix, spec)
  for (const { prefix, router } of routers) for (const spec of specsOf(router)) if (spec.method === 'all') builder.addOtherMethods(prefix, spec)
  const paths = Object.fromEntries(Object.entries(builder.paths).sort(([a], [b]) => a.localeCompare(b)))
  const usedTags = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation?.tags as string[] | undefined) ?? [])))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bula simulator',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Bula', url: 'https://www.npmjs.com/package/bula-tools' },
      description: [
        'The local simulator of the FJD payment service: its API (`/v1/...`, and `/api-keys` and `/webhook-endpoints`',
        'with or without `/v1`) and the simulator-only surface (`/_sim/...`). Generated from the zod schemas in src/schemas',
        'and the routes\' specs (docs/openapi.md). The hosted pages (`/pay/...`, `/i/...`) and the web dashboard (`/dashboard/...`) are HTML for browsers and are not listed.',
      ].join(' '),
    },
    // The running server fills in its own address, so a tool pointed at this document calls this simulator.
    servers: [{ url: baseUrl || 'http://127.0.0.1:4111', description: 'This simulator' }],
    tags: Object.entries(TAGS)
      .filter(([name]) => usedTags.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: builder.usedSchemas(),
      responses: Object.fromEntries(Object.entries(builder.responses).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'sk_test_… or sk_live_…',
          description: 'A secret API key; its mode sets the mode of everything the request makes or reads.',
        },
        publishableKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pk_test_… or pk_live_…',
          description: 'A publishable key: only creating Checkout Sessions takes it.',
        },
      },
      headers: Object.fromEntries(
        Object.entries(RESPONSE_HEADERS).map(([name, { description, schema }]) => [
          name,
          // Every answer carries X-Request-Id; the others come with what their description says.
          { description, ...(name === 'X-Request-Id' ? { required: true } : {}), schema: jsonOf(schema) },
        ]),
      ),
    },
  }
}

/** `GET /openapi.json`, built on the first request, when every route of the app is in place and the server knows its address. */
export function openApiRouter(app: Express, ctx: ServiceContext, version: string): Router {
  const router = apiRouter()
  let document: OpenApiDocument | undefined
  apiRoutes(router, ctx)(
    { method: 'get', path: '/openapi.json', summary: 'This OpenAPI 3.1 document', description: 'Generated from the routes and their zod schemas, with the running server as `servers[0]`.', auth: 'none', response: { body: schemas.openApiDocumentSchema } },
    () => {
      document ??= openApiDocument(app, version, ctx.urls.base)
      return { body: document }
    },
  )
  return router
}
