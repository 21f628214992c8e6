import type { Express, Request, RequestHandler, Response } from 'express'
import { setTimeout as sleep } from 'node:timers/promises'
import { invalidRequest } from '../../src/errors.js'
import type { ServiceContext } from '../context.js'
import { ANY_ROUTE, normalizeRoute, routeName, type StruckFault } from '../domain/api-faults.js'
import { apiError } from '../domain/error-catalog.js'
import { callerOf } from './auth.js'
import { faultsApply, joinPaths, mountedRouters, openApiPath, specsOf } from './openapi-routes.js'

/** The fault struck into a request, for the request log (server/http/request-logging.ts). */
export const struckFaultOf = (res: Response): StruckFault | undefined => res.locals.fault as StruckFault | undefined

/** The routes faults may name, as `METHOD /path` of /openapi.json: every declared route that takes a key and does not opt out. */
const faultableRoutes = new WeakMap<Express, ReadonlySet<string>>()

function routesOf(app: Express): ReadonlySet<string> {
  let routes = faultableRoutes.get(app)
  if (!routes) {
    const found = new Set<string>()
    for (const { prefix, router } of mountedRouters(app)) {
      for (const spec of specsOf(router)) {
        if (spec.method !== 'all' && faultsApply(spec)) found.add(routeName(spec.method, openApiPath(joinPaths(prefix, spec.path)).path))
      }
    }
    routes = found
    faultableRoutes.set(app, routes)
  }
  return routes
}

/** A declared route whose path pattern `path` fits: the hint for a fault naming `/v1/invoices/42` instead of `/v1/invoices/{id}`. */
function routeFitting(routes: ReadonlySet<string>, method: string, path: string): string | undefined {
  return [...routes].find((route) => {
    const [routeMethod, routePath] = route.split(' ')
    return routeMethod === method && new RegExp(`^${routePath!.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)
  })
}

/**
 * `route` of a new fault, normalized, when it is `*` or a route the app
 * declares that faults may touch; otherwise a 400 naming `route` that says
 * what would be right.
 */
export function checkFaultRoute(app: Express, route: string): string {
  const name = normalizeRoute(route)
  const routes = routesOf(app)
  if (name === ANY_ROUTE || routes.has(name)) return name
  const [method = '', path = ''] = name.split(' ')
  const fitting = routeFitting(routes, method, path)
  const hint = fitting
    ? ` Name the route as /openapi.json does: "${fitting}".`
    : path.startsWith('/_sim/faults') || path === '/_sim/health'
      ? ' Faults never apply to /_sim/faults itself nor to /_sim/health.'
      : ' Give "*" or a method and a path of /openapi.json, such as "POST /v1/checkout-sessions" or "GET /v1/invoices/{id}".'
  throw invalidRequest(`"${route}" is not a route faults can apply to.${hint}`, 'route')
}

/** The route a request was matched to, as faults name it; HEAD is GET's. */
function requestRoute(req: Request): string {
  const method = req.method === 'HEAD' ? 'GET' : req.method
  return routeName(method, openApiPath(joinPaths(req.baseUrl, (req.route as { path: string }).path)).path)
}

/**
 * The answer is dropped at its first byte, whatever writes it (a JSON reply,
 * an error, a file, a stream): the connection closes instead. Routes answer
 * only after their changes are on disk (server/http/handle.ts), so the work
 * is done and kept, and the client cannot know it.
 */
function dropAnswer(req: Request, res: Response): void {
  const writeHead = res.writeHead
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    req.socket.destroy()
    return writeHead.apply(this, args)
  } as Response['writeHead']
}

/**
 * Runs after authentication on every route faults may touch: when the
 * caller's merchant and mode have a fault for this route that strikes,
 * it answers an error, holds the answer back, closes the connection
 * unanswered, or lets the work happen and then closes it (docs/faults-and-doctor.md).
 * A merchant without faults pays one map lookup.
 */
export function injectFaults(ctx: ServiceContext): RequestHandler {
  return (req, res, next) => {
    const { merchant, mode } = callerOf(res)
    if (!ctx.apiFaults.any(merchant.id, mode)) return next()
    const fault = ctx.apiFaults.take(merchant.id, mode, requestRoute(req))
    if (!fault) return next()
    res.locals.fault = fault
    switch (fault.action) {
      case 'error':
        next(apiError('injected_fault', `Fault ${fault.id} answered this request with ${fault.status}; nothing was changed. Retry it as your client would.`, { status: fault.status ?? undefined }))
        return
      case 'delay': {
        // A client that gave up waiting has no one to answer: the request is dropped unrun, as a reset would be.
        let gone = false
        res.once('close', () => (gone = true))
        sleep(fault.delayMs ?? 0).then(() => (gone ? undefined : next()), next)
        return
      }
      case 'reset':
        // Nothing ran: the connection goes before the route does.
        req.socket.destroy()
        return
      case 'lose_response':
        dropAnswer(req, res)
        next()
        return
    }
  }
}
