import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { byteSize } from '../../src/byte-size.js'
import type { ApiError } from '../../src/errors.js'
import { apiError } from '../domain/error-catalog.js'
import { newId } from '../ids.js'
import { noRoute } from './errors.js'

/** What Node's HTTP parser (llhttp) or its request timer hands `clientError`. */
interface ClientError extends Error {
  code?: string
  /** llhttp's own words for what it could not parse, e.g. "Invalid method encountered". */
  reason?: string
}

/** The refusal for an error Node raised before Express saw the request. */
function refusalOf(error: ClientError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return apiError('headers_too_large', `The request line and headers are larger than ${byteSize(maxHeaderSize)}; send fewer or shorter headers.`)
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return apiError('payload_too_large', 'The chunk extensions of the body are too large.')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return apiError('request_timeout', 'The request did not arrive in time; send its headers and body without pausing.')
  }
  const reason = typeof error.reason === 'string' && error.reason !== '' ? `: ${error.reason.replace(/\.$/, '')}` : ''
  return apiError('invalid_request', `The request could not be read as HTTP${reason}.`)
}

/** The response a socket is writing (Node's own name for it, which its default clientError answer checks too). */
const responseOf = (socket: Duplex): ServerResponse | null | undefined => (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage

/**
 * Closes `socket` once the responses already under way on it are sent: the
 * pipelined requests before the unreadable one get their answers, and no
 * refusal is slipped in ahead of them (Node's own 400 was).
 */
function closeAfterResponses(socket: Duplex): void {
  const response = responseOf(socket)
  if (!response) socket.destroy()
  // Node hands the socket to the next queued response in an earlier 'finish' listener.
  else response.once('close', () => closeAfterResponses(socket))
}

/**
 * The server's `clientError` listener. Without it Node answers a request it
 * cannot read with a bare `431` or `400` and no body, the one refusal
 * without the error envelope; this one sends the envelope and an
 * `X-Request-Id`, then closes the connection, since the bytes after an
 * unreadable request cannot be trusted to start the next one.
 */
export function answerClientErrors(options: { log: (line: string) => void; logRequests: boolean }): (error: ClientError, socket: Duplex) => void {
  const handled = new WeakSet<Duplex>()
  return (error, socket) => {
    // The parser raises the same error again for every later chunk of the connection.
    if (handled.has(socket)) return
    handled.add(socket)
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const response = responseOf(socket)
    // The request being answered was read whole, so the unreadable bytes are a later request's.
    if (response?.req.complete) {
      closeAfterResponses(socket)
      return
    }
    // Its own request went wrong (a body cut short by the timer, a bad chunk) after its answer started.
    if (response?.headersSent) {
      socket.destroy()
      return
    }
    const refusal = refusalOf(error)
    const requestId = refuseOnSocket(socket, refusal)
    if (options.logRequests) options.log(`(unread request) ${refusal.status} ${requestId} ${error.code ?? error.message}`)
  }
}

/** Writes `refusal` as the whole answer on a connection no response object serves, then closes it; answers its request id. */
function refuseOnSocket(socket: Duplex, refusal: ApiError): string {
  const requestId = newId('req')
  const body = JSON.stringify(refusal.toEnvelope())
  socket.end(
    [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
    () => socket.destroy(),
  )
  return requestId
}

/**
 * What the app answers when its router gives up before the first route: a
 * request target whose host does not parse (`GET http://[evil/v1/… HTTP/1.1`,
 * an absolute form) leaves Express no path to route, and its own last answer
 * is an HTML 404 without the envelope or a request id.
 */
export function refuseUnroutable(options: { log: (line: string) => void; logRequests: boolean }): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (res.headersSent) {
      res.destroy()
      return
    }
    const refusal = apiError('invalid_request', 'The request target is neither a path nor a URL that can be read.')
    const requestId = newId('req')
    const body = JSON.stringify(refusal.toEnvelope())
    res.writeHead(refusal.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': requestId })
    res.end(body)
    if (options.logRequests) options.log(`${req.method ?? ''} (unreadable target) ${refusal.status} ${requestId}`)
  }
}

/**
 * The server's `connect` listener. Node hands a CONNECT request (a proxy's
 * tunnel) to it instead of to the app, and without one closes the
 * connection without a word; no route takes the method, so it is 404
 * `not_found`, as TRACE is.
 */
export function answerConnect(options: { log: (line: string) => void; logRequests: boolean }): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    const refusal = noRoute('CONNECT', req.url ?? '')
    const requestId = refuseOnSocket(socket, refusal)
    if (options.logRequests) options.log(`CONNECT ${req.url ?? ''} ${refusal.status} ${requestId}`)
  }
}
