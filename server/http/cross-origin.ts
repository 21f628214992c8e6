import type { Express, RequestHandler } from 'express'
import { joinPaths, mountedRouters, specsOf } from './openapi-routes.js'

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key'
/** The answer's headers a page's script may read: the ones a client branches on (docs/simulator.md). */
const EXPOSED_HEADERS = 'X-Request-Id, Idempotent-Replayed, Retry-After'

/** `METHOD path` of every route a publishable key may call, as the routes' own specs declare it. */
function publishableOperations(app: Express): Set<string> {
  const found = new Set<string>()
  for (const { prefix, router } of mountedRouters(app)) {
    for (const spec of specsOf(router)) {
      if (spec.auth === 'secret-or-publishable') found.add(`${spec.method.toUpperCase()} ${joinPaths(prefix, spec.path)}`)
    }
  }
  return found
}

/**
 * Calls from a web page on another origin (docs/simulator.md, "Calls from a
 * web page"). The spec gives publishable keys "for client-side use": a
 * page's script creates a Checkout Session with one, so the routes such a
 * key may call answer any origin, preflight included, and their answers
 * (errors too: a 401 or a 429 the script must read) carry
 * `Access-Control-Allow-Origin: *`. Every other route keeps the browser's
 * same-origin wall, as a secret key has no place in a page. No answer
 * depends on a cookie, so `*` lends a page nothing but what its key allows;
 * and no `Access-Control-Allow-Private-Network` is sent, so a public website
 * cannot reach a simulator on the developer's machine through Chrome.
 *
 * The routes are read from the app's route specs on the first request (the
 * app is complete by then), so a route that starts taking publishable keys
 * answers pages with no change here.
 */
export function crossOriginCalls(app: Express): RequestHandler {
  let operations: Set<string> | undefined
  return (req, res, next) => {
    operations ??= publishableOperations(app)
    const preflightFor = req.method === 'OPTIONS' ? req.get('access-control-request-method') : undefined
    const operation = `${preflightFor ?? req.method} ${req.path}`
    if (!operations.has(operation)) return next()
    res.setHeader('Access-Control-Allow-Origin', '*')
    if (preflightFor === undefined) {
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS)
      return next()
    }
    res.setHeader('Access-Control-Allow-Methods', preflightFor)
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS)
    // So that a page does not ask again before every call for ten minutes.
    res.setHeader('Access-Control-Max-Age', '600')
    res.status(204).end()
  }
}
