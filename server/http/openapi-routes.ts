import type { Express, RequestHandler, Router } from 'express'
import type { z } from 'zod'
import type { ErrorCode } from '../domain/error-catalog.js'

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'

/**
 * Which key the route takes. It restates what the route's `authenticate()`
 * does (router-wide or per route); test/http/openapi.test.ts checks the two
 * agree by calling every route without a key and with a publishable one.
 */
export type RouteAuth = 'none' | 'secret' | 'secret-or-publishable'

/** A JSON answer, described by a schema exported from src/schemas. */
export interface JsonSuccess {
  status?: 200 | 201
  body: z.ZodType
}

/** An answer that is not JSON: a file, or a Server-Sent Events stream. */
export interface RawSuccess {
  contentType: 'application/octet-stream' | 'text/event-stream'
  description: string
}

/** One route as /openapi.json documents it. Schemas must be exports of src/schemas, which name them. */
export interface RouteSpec {
  method: HttpMethod
  /** Express syntax, relative to the router's mount path: `/:id/rotate`. */
  path: string
  summary: string
  /** What a client needs beyond the summary: rules, states, limits. */
  description: string
  auth: RouteAuth
  /** The route reads `Idempotency-Key` through idempotencyKeyOf(). */
  idempotencyKey?: true
  /** The schema the route parses `req.query` with. */
  query?: z.ZodType
  /** The schema of `req.body`: the one the route parses it with. */
  body?: z.ZodType
  /** The largest body the route reads, in bytes, when it is not the 1 MiB of every other route (413 above it). */
  bodyLimit?: number
  response: JsonSuccess | RawSuccess
  /**
   * Codes beyond those every route of its kind answers: 400, 500, the
   * key's 401/403, 404 on a path with an id, 413 and 503 on writes
   * (docs/openapi.md).
   */
  errors?: readonly ErrorCode[]
  /** False on the routes API faults never touch (`/_sim/faults` itself); they apply to every other route that takes a key. */
  faults?: false
}

/** Whether the merchant's API faults (POST /_sim/faults) can touch this route: every route that takes a key, unless it opts out. */
export const faultsApply = (spec: RouteSpec): boolean => spec.auth !== 'none' && spec.faults !== false

/** `router.all(path)` after the declared methods: every other method on `path` answers `errors`. */
export interface OtherMethodsSpec {
  method: 'all'
  path: string
  summary: string
  auth: RouteAuth
  errors: readonly ErrorCode[]
}

const specsByRouter = new WeakMap<Router, (RouteSpec | OtherMethodsSpec)[]>()

/**
 * Adds a route to `router` and records its spec for /openapi.json. Every
 * route is added through here: one added any other way is missing from the
 * document, and test/http/openapi.test.ts fails.
 */
export function declareRoute(router: Router, spec: RouteSpec | OtherMethodsSpec, ...handlers: RequestHandler[]): void {
  specsByRouter.set(router, [...(specsByRouter.get(router) ?? []), spec])
  router[spec.method](spec.path, handlers)
}

export const specsOf = (router: Router): readonly (RouteSpec | OtherMethodsSpec)[] => specsByRouter.get(router) ?? []

/** An entry of router.listRoutes() (router 2.3, Express 5's router); @types/express does not declare it yet. */
interface ListedRoute {
  path: string | RegExp
  /** Upper case, `HEAD` added for `GET`, `*` for `.all()`; undefined for a mounted router. */
  methods: string[] | undefined
  router: Router | undefined
}

function listRoutes(router: Router): ListedRoute[] {
  const list = (router as Router & { listRoutes?: () => ListedRoute[] }).listRoutes
  if (!list) throw new Error('router.listRoutes() is missing: /openapi.json needs the router package 2.3 or later (Express 5).')
  return list.call(router)
}

/** Joins Express paths: `/v1/api-keys` + `/` is `/v1/api-keys`, `/` + `/openapi.json` is `/openapi.json`. */
export function joinPaths(prefix: string, path: string | RegExp): string {
  if (typeof path !== 'string') throw new Error(`A RegExp route path (${String(path)}) cannot be documented; use a string path.`)
  return `${prefix}/${path}`.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1')
}

/** `/v1/invoices/:id/send` → `/v1/invoices/{id}/send`, and the parameter names. */
export function openApiPath(expressPath: string): { path: string; params: string[] } {
  if (/[*?(){}]/.test(expressPath)) throw new Error(`${expressPath}: only plain segments and :params can be documented.`)
  const params: string[] = []
  const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    params.push(name)
    return `{${name}}`
  })
  return { path, params }
}

export interface MountedRouter {
  /** Where the router answers, in Express syntax. */
  prefix: string
  router: Router
}

/** Every router of the app, nested ones included, with the path each is mounted at (once per path of a multi-path mount). */
export function mountedRouters(app: Express): MountedRouter[] {
  const found: MountedRouter[] = []
  const visit = (router: Router, prefix: string): void => {
    found.push({ prefix, router })
    for (const entry of listRoutes(router)) if (entry.router) visit(entry.router, joinPaths(prefix, entry.path))
  }
  visit(app.router, '/')
  return found
}

export interface AppRoute {
  /** Express syntax: `/v1/invoices/:id/send`. */
  path: string
  /** As listRoutes() gives them: `GET`, `HEAD`, `*` for `.all()`. */
  methods: string[]
  /** Where it is mounted, e.g. `/pay` for the hosted checkout pages. */
  prefix: string
}

/** Every route Express would dispatch to, whether or not it was declared with a spec. */
export function appRoutes(app: Express): AppRoute[] {
  return mountedRouters(app).flatMap(({ prefix, router }) =>
    listRoutes(router).flatMap((entry) => (entry.methods ? [{ path: joinPaths(prefix, entry.path), methods: entry.methods, prefix }] : [])),
  )
}
