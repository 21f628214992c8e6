import type { ErrorRequestHandler, RequestHandler } from 'express'
import { ApiError } from '../../src/errors.js'
import { apiError } from '../domain/error-catalog.js'

interface FrameworkError {
  type?: string
  /** http-errors' status; 4xx means the request was at fault. */
  status?: unknown
  code?: unknown
  message?: unknown
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
      return apiError('invalid_request', 'The body is not valid JSON.')
    case 'entity.too.large':
      return apiError('payload_too_large', 'The body is larger than 1 MiB.')
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return apiError('invalid_request', 'Send the body as UTF-8 JSON.')
  }
  if (typeof error.status !== 'number' || error.status < 400 || error.status > 499) return undefined
  if (error instanceof URIError) return apiError('invalid_request', 'The path has a percent-escape that does not decode (e.g. %E0%A4%A).')
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) {
    return apiError('invalid_request', 'The body does not decode with its Content-Encoding; send it uncompressed or compressed as the header says.')
  }
  return new ApiError(error.status, 'invalid_request', `The request could not be read: ${String(error.message)}.`)
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(apiError('not_found', `No route ${req.method} ${req.path}.`))
}

/** The one place an error becomes a response: the spec's envelope, never a stack trace. */
export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    let answer: ApiError
    // A refused write is an ApiError too (503 storage_unavailable); the store logged the disk's reason.
    if (error instanceof ApiError) answer = error
    else {
      answer =
        (typeof error === 'object' && error !== null && fromFrameworkError(error as FrameworkError)) ||
        apiError('internal_error', 'Something went wrong in the simulator.')
      if (answer.status === 500) log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    }
    if (res.headersSent) return
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value)
    res.status(answer.status).json(answer.toEnvelope())
  }
}
