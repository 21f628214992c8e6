/**
 * The one error type of Bula. The simulator throws it and the Express error
 * handler renders it as the spec's envelope; the CLI client rebuilds it from
 * an envelope and the command base class prints it as `code: message`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly type?: string,
    /** Extra response headers, such as Retry-After on 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** The same error told another way: a hint added, or part of the message masked. */
  withMessage(message: string): ApiError {
    return new ApiError(this.status, this.code, message, this.param, this.type, this.headers)
  }

  toEnvelope(): ErrorEnvelope {
    const error: ErrorEnvelope['error'] = { code: this.code, message: this.message }
    if (this.param !== undefined) error.param = this.param
    if (this.type !== undefined) error.type = this.type
    return { error }
  }
}

export interface ErrorEnvelope {
  error: { code: string; message: string; param?: string; type?: string }
}

export const invalidRequest = (message: string, param?: string): ApiError =>
  new ApiError(400, 'invalid_request', message, param)

export const notFound = (what = 'object'): ApiError =>
  new ApiError(404, 'not_found', `No such ${what} for this merchant and mode.`)

export const invalidState = (message: string): ApiError => new ApiError(409, 'invalid_state', message)
