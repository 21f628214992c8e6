import { apiError } from '../domain/error-catalog.js'
import { Router, type Request, type RequestHandler, type Response } from 'express'
import type { z } from 'zod'
import { emptyBodySchema } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import type { IdempotentResult } from '../services/idempotency.js'
import { authenticate, callerOf, requireKeyStillUsable } from './auth.js'
import { handle, idempotentReply, type Reply } from './handle.js'
import { injectFaults } from './faults.js'
import { jsonBody } from './json-body.js'
import { series } from './series.js'
import { declareRoute, faultsApply, type RouteSpec } from './openapi-routes.js'
import { idempotencyKeyOf, parseWith } from './validate.js'

type Parsed<T> = T extends z.ZodType ? z.output<T> : Record<string, never>

/** What a route's handler is given: everything its declaration describes, already checked. */
export interface RouteInput<S extends RouteSpec> {
  req: Request
  res: Response
  caller: S['auth'] extends 'none' ? undefined : Caller
  /** The body parsed with `spec.body`; a route that declares none takes none (`{}` or no body at all). */
  body: Parsed<S['body']>
  /** The query parsed with `spec.query`; a route that declares none takes no query parameter. */
  query: Parsed<S['query']>
  params: Record<string, string>
  /** The Idempotency-Key, on routes that declare `idempotencyKey`. */
  key: S['idempotencyKey'] extends true ? string : undefined
}

/** A handler returns its answer, or nothing once it has written the answer itself (a file, an event stream). */
export type RouteHandler<S extends RouteSpec> = (input: RouteInput<S>) => Reply | undefined | Promise<Reply | undefined>

/**
 * How a route that takes an Idempotency-Key answers a request its schemas
 * refused: the key's stored result (its replay, or 409 for a different
 * request), or `undefined` when the key has none and the refusal stands.
 * `body` is the body as sent, unvalidated.
 */
export type ReplayHandler = (input: { caller: Caller; params: Record<string, string>; key: string; body: unknown }) => IdempotentResult<unknown> | undefined

/** Every route that takes an Idempotency-Key declares its ReplayHandler after its handler; no other route has one. */
type ReplayArgument<S extends RouteSpec> = S['idempotencyKey'] extends true ? [replay: ReplayHandler] : []

/** Whether a request carries a body at all (RFC 9112 §6.3): a length above zero, or chunks. */
const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')

/**
 * A body the JSON parser did not read because it is not JSON is refused as
 * such, rather than read as no body at all (a `text/plain` body would
 * otherwise pass as `{}`, or be refused for a field it does contain). The
 * parser (json-body.ts) sets `req.body` exactly when the Content-Type is JSON.
 */
function requireJson(req: Request): void {
  if (req.body === undefined && hasBody(req)) {
    throw apiError('unsupported_media_type', `Send the body as JSON, with \`Content-Type: application/json\` (got ${req.get('content-type') ?? 'none'}).`, { param: 'Content-Type' })
  }
}

/** The id of what an idempotent write made or changed, for the request log: `bula doctor` names the objects a retry duplicated. */
function recordObjectId(res: Response, reply: Reply | undefined): void {
  const id = (reply?.body as { id?: unknown } | undefined)?.id
  if (typeof id === 'string' || typeof id === 'number') res.locals.objectId = String(id)
}

/**
 * A router for API routes: its paths match case-sensitively, as the
 * service's do, so `/v1/Invoices` or `/v1/checkout-sessions/{id}/CANCEL` is
 * the 404 it would be there, not a route that works only here.
 */
export const apiRouter = (): Router => Router({ caseSensitive: true })

/**
 * The routes of one router, declared once: each spec is what /openapi.json
 * documents and also what the request is held to, by construction. Before
 * the handler runs, a route authenticates the key its spec names, applies
 * the router's `guard` (such as the business tier), and parses the
 * Idempotency-Key, the query string and the body with the spec's own
 * schemas (strictly: a route that declares no query or body takes none).
 * Then the handler runs, its writes are committed, and its answer is sent
 * (server/http/handle.ts).
 */
export function apiRoutes(router: Router, ctx: ServiceContext, options: { guard?: (caller: Caller) => void } = {}) {
  const readBody = jsonBody()
  return <const S extends RouteSpec>(spec: S, run: RouteHandler<S>, ...[replay]: ReplayArgument<S>): void => {
    const readThisBody = spec.bodyLimit === undefined ? readBody : jsonBody(spec.bodyLimit)
    const before: RequestHandler[] = []
    if (spec.auth !== 'none') before.push(authenticate(ctx, { allowPublishable: spec.auth === 'secret-or-publishable' }))
    const guard = options.guard
    if (guard && spec.auth !== 'none') {
      before.push((_req, res, next) => {
        try {
          guard(callerOf(res))
          next()
        } catch (error) {
          next(error)
        }
      })
    }
    // The body is read only once the key (401) and the tier (403 business_only) passed, as the spec orders them:
    // a request without a valid key learns nothing from its body, whatever it is (malformed, over 1 MiB, __proto__).
    before.push(...readThisBody)
    if (faultsApply(spec)) before.push(injectFaults(ctx))
    // One layer for the route's handlers (series.ts).
    declareRoute(
      router,
      spec,
      series(...before, handle(ctx, async (req, res) => {
        // The body has arrived by now: the key that let it in may have been revoked meanwhile.
        const caller = spec.auth === 'none' ? undefined : callerOf(res)
        if (caller) requireKeyStillUsable(ctx, caller)
        const key = spec.idempotencyKey ? idempotencyKeyOf(req) : undefined
        // A header's check, as the key's: a body the parser did not read is no body to compare with a stored request.
        requireJson(req)
        const params = req.params as Record<string, string>
        let query: unknown
        let body: unknown
        try {
          query = parseWith(spec.query ?? emptyBodySchema, req.query, 'query')
          body = parseWith(spec.body ?? emptyBodySchema, req.body)
        } catch (error) {
          // A repeated key is answered with its stored result whatever the body (spec, Idempotency: "Repeating a key
          // returns the original result"). Only a refused request asks: a valid one finds the result in its service.
          const stored = replay && caller && key !== undefined ? replay({ caller, params, key, body: req.body }) : undefined
          if (stored === undefined) throw error
          const reply = idempotentReply(stored)
          recordObjectId(res, reply)
          return reply
        }
        const reply = await run({ req, res, caller, body, query, params, key } as RouteInput<S>)
        if (spec.idempotencyKey) recordObjectId(res, reply)
        return reply
      })),
    )
  }
}
