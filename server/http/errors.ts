import type { ErrorRequestHandler, Request, RequestHandler, Router } from 'express'
import { byteSize } from '../../src/byte-size.js'
import { ApiError } from '../../src/errors.js'
import { isJsonText } from '../../src/json.js'
import { apiError } from '../domain/error-catalog.js'

interface FrameworkError {
  type?: string
  /** http-errors' status; 4xx means the request was at fault. */
  status?: unknown
  code?: unknown
  message?: unknown
  /** body-parser's: the route's byte limit (a JSON body's 1 MiB, a form's 16 or 64 KiB), the charset or encoding it refused. */
  limit?: unknown
  charset?: unknown
  encoding?: unknown
  /** body-parser's (and json-body.ts's): the text of a body it could not parse, without the byte order mark its decoding drops. */
  body?: unknown
}

/**
 * Errors Express raises before a route runs: body-parser's by their `type`;
 * then any other client error (http-errors' 4xx status), such as a path
 * whose percent-encoding does not decode or a body whose Content-Encoding
 * does not match its bytes.
 */
function fromFrameworkError(error: FrameworkError): ApiError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return apiError('invalid_request', typeof error.body === 'string' && isJsonText(error.body) ? 'The body must be a JSON object.' : 'The body is not valid JSON.')
    case 'entity.too.large':
      return apiError('payload_too_large', typeof error.limit === 'number' ? `The body is larger than ${byteSize(error.limit)}.` : 'The body is too large.')
    case 'entity.too.complex':
      return apiError('payload_too_large', String(error.message))
    case 'parameters.too.many':
      return apiError('payload_too_large', 'The form has too many fields.')
    case 'encoding.unsupported':
      return apiError('invalid_request', `The Content-Encoding ${String(error.encoding)} is not supported; send the body uncompressed, or as gzip, deflate or br.`)
    case 'charset.unsupported':
      return apiError('invalid_request', `The charset ${String(error.charset)} is not supported; send the body as UTF-8.`, { param: 'Content-Type' })
    case 'encoding.not.utf8':
      return apiError('invalid_request', 'The body is not valid UTF-8: send its text encoded as UTF-8.')
  }
  if (typeof error.status !== 'number' || error.status < 400 || error.status > 499) return undefined
  if (error instanceof URIError) return apiError('invalid_request', 'The path has a percent-escape that does not decode (e.g. %E0%A4%A).')
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) {
    return apiError('invalid_request', 'The body does not decode with its Content-Encoding; send it uncompressed or compressed as the header says.')
  }
  return new ApiError(error.status, 'invalid_request', `The request could not be read: ${String(error.message)}.`)
}

/** 404 `not_found` for a method and target no route takes: Express's requests, and those Node answers before it (CONNECT). */
export const noRoute = (method: string, target: string): ApiError => apiError('not_found', `No route ${method} ${target}.`)

/**
 * The path the client asked for, without the query. Not `req.path`: inside
 * a router mounted at a path that is only the rest (`/clock` under `/_sim`,
 * `/` for `/_sim/state`). A target in absolute form (`http://host/path`, as
 * a proxy sends it) names its path after the host, as Express reads it.
 */
function requestedPath(req: Request): string {
  const target = req.originalUrl.split('?', 1)[0]!
  return target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/'
}

/** 404 `not_found` naming the whole path, wherever it runs: at the end of the app or of a mounted router. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(noRoute(req.method, requestedPath(req)))
}

/** The JSON surfaces: the API, the simulator's controls and the API's document. */
const JSON_SURFACES = /^\/(v1|api-keys|webhook-endpoints|_sim|openapi\.json)(\/|$)/

/**
 * The service's routes end without a slash, so `/v1/invoices/` is an
 * unknown route there, 404 `not_found`, and a client that adds one must not
 * work only here. Express takes `/v1/invoices/` for `/v1/invoices`, and a
 * router mounted at a path cannot tell the two apart, so the app checks
 * before its routers. The hosted pages and the dashboard are for browsers
 * and keep taking a typed slash.
 */
export const refuseTrailingSlash: RequestHandler = (req, res, next) => {
  if (req.path.length > 1 && req.path.endsWith('/') && JSON_SURFACES.test(req.path)) notFoundHandler(req, res, next)
  else next()
}

/**
 * Ends a router whose routes are all declared: an OPTIONS request none of
 * them took is what any other method a path does not take is (TRACE, or PUT
 * on a read), 404 `not_found`. Without it Express answers such a request by
 * itself, from inside the router that holds the path: 200 `text/plain`
 * listing the path's methods, before any key is asked for. A route that
 * takes every method (the read-only Payouts' 405) still answers it.
 */
export function refuseUntakenOptions(router: Router): Router {
  router.use((req, res, next) => {
    if (req.method === 'OPTIONS') notFoundHandler(req, res, next)
    else next()
  })
  return router
}

/**
 * What an error a request ran into tells its client: an ApiError as thrown
 * (a refused write too, 503 storage_unavailable: the store logged the
 * disk's reason), a framework's client error as its catalogued code;
 * undefined for anything else, a bug.
 */
export function clientErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error
  return typeof error === 'object' && error !== null ? fromFrameworkError(error as FrameworkError) : undefined
}

/** The one place an error becomes a JSON response: the spec's envelope, never a stack trace. */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    let answer = clientErrorOf(error)
    if (!answer) {
      log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      answer = apiError('internal_error', 'Something went wrong in the simulator.')
    }
    if (res.headersSent) return
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value)
    res.status(answer.status).json(answer.toEnvelope())
  }
}
