import { isUtf8 } from 'node:buffer'
import express, { type NextFunction, type Request, type RequestHandler } from 'express'
import { invalidRequest } from '../../src/errors.js'
import { MAX_BODY_DEPTH } from '../../src/json-depth.js'

/** An object or array in the body: the way back to the root for naming its path, and how far its walk has gone. */
interface Container {
  value: object
  depth: number
  parent?: Container
  /** `.key` or `[index]`; the root has none. */
  segment?: string
  /** An object's keys (an array's are its indexes). */
  keys?: string[]
  /** The index of the next key or item to visit. */
  next: number
}

/** `metadata.__proto__`, `items[0].__proto__`, `__proto__` at the top. */
function pathOf(container: Container, lastSegment: string): string {
  const segments = [lastSegment]
  for (let at: Container | undefined = container; at?.segment !== undefined; at = at.parent) segments.push(at.segment)
  return segments.reverse().join('').replace(/^\./, '')
}

/** The walk's entry for an object or array reached from `parent`, refused if it is too deep or has a `__proto__` key. */
function enter(value: object, parent?: Container, segment?: string): Container {
  const depth = parent === undefined ? 1 : parent.depth + 1
  if (depth > MAX_BODY_DEPTH) {
    throw invalidRequest(`The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep; no route takes that.`)
  }
  const container: Container = { value, depth, parent, segment, next: 0 }
  if (Array.isArray(value)) return container
  if (Object.hasOwn(value, '__proto__')) {
    const param = pathOf(container, '.__proto__')
    throw invalidRequest(`\`${param}\`: the key \`__proto__\` is not allowed anywhere in a body (JavaScript would drop it silently); rename it.`, param)
  }
  container.keys = Object.keys(value)
  return container
}

/**
 * JSON.parse keeps a `__proto__` key as an ordinary own property, but zod
 * builds its output by assignment, and assigning `__proto__` sets the
 * prototype instead: the key vanished without a word (docs/security.md). So a
 * parsed body with a `__proto__` key in any object is refused. The walk
 * keeps its own stack and checks the depth as it goes, never recursing, in
 * document order, so the first problem is the one reported. The stack holds
 * only the way down to the value being visited, never an array's items: an
 * entry for each of the 21 million `{}` of a 60 MiB body took gigabytes,
 * nearly all the heap.
 */
function checkParsedBody(body: object): void {
  const stack: Container[] = [enter(body)]
  while (stack.length > 0) {
    const container = stack.at(-1)!
    const { value, keys } = container
    const length = keys === undefined ? (value as unknown[]).length : keys.length
    if (container.next === length) {
      stack.pop()
      continue
    }
    const index = container.next++
    const child = keys === undefined ? (value as unknown[])[index] : (value as Record<string, unknown>)[keys[index]!]
    if (typeof child === 'object' && child !== null) stack.push(enter(child, container, keys === undefined ? `[${index}]` : `.${keys[index]}`))
  }
}

/** The largest body a route takes unless its spec says otherwise: 413 `payload_too_large` above it (docs/simulator.md). */
const BODY_LIMIT_BYTES = 1024 * 1024

/**
 * The most objects and arrays a body may hold: 413 `payload_too_large`
 * above it, counted before the body is parsed. JSON.parse takes about 0.2
 * µs for each, on the simulator's one thread, so a 16 MiB state import of
 * five million `{}` held every other request for 1.4 s, where a merchant's
 * own 16 MiB export holds fewer than 200,000 (docs/security.md).
 */
export const MAX_BODY_CONTAINERS = 500_000

/**
 * The most object shapes a body may make: 413 above it, counted with the
 * containers. A shape is a run of key names in order from the start of an
 * object (`{"a":…,"b":…}` makes two, `a` and `a,b`); JSON.parse makes a
 * new one, about 1.4 µs, for every run it has not seen. 16 MiB of 1.3
 * million different names held every other request for 1.1–3.8 s, and 16
 * MiB of objects of 8 keys drawn in any order from 20,000 names for 2.5 s
 * (27 November). 200,000 cost it about 0.3 s, as many scalars do; an
 * export makes a few hundred, plus one for each metadata key that only one
 * session uses (5,100 sessions of 20 keys of their own make 102,000).
 */
export const MAX_BODY_SHAPES = 200_000

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * Refuses a body of more than MAX_BODY_CONTAINERS objects and arrays, or
 * objects of more than MAX_BODY_SHAPES shapes. Read on the bytes: in UTF-8
 * no byte of a multi-byte character is a quote, a backslash or a bracket,
 * so a `{` inside a string is never counted. A string followed by a colon
 * is a key; a shape is a 32-bit hash of its object's keys so far (FNV-1a of
 * each name's bytes, chained), so two that collide count once, which only
 * lets a body pass.
 */
function refuseTooComplex(bytes: Buffer): void {
  // Every container takes two bytes at least (`{}`): a shorter body, which is nearly every body, cannot have too many.
  if (bytes.length <= 2 * MAX_BODY_CONTAINERS) return
  let containers = 0
  let inString = false
  let hash = FNV_OFFSET
  let lastString = 0
  // The shape of the innermost open object (arrays too, which have no keys), and those it is inside.
  let shape = FNV_OFFSET
  const outer: number[] = []
  const shapes = new Set<number>()
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!
    if (inString) {
      if (byte === QUOTE) {
        inString = false
        lastString = hash
        continue
      }
      hash = Math.imul(hash ^ byte, FNV_PRIME)
      if (byte === BACKSLASH) hash = Math.imul(hash ^ bytes[++at]!, FNV_PRIME)
    } else if (byte === QUOTE) {
      inString = true
      hash = FNV_OFFSET
    } else if (byte === COLON) {
      shape = Math.imul(shape ^ lastString, FNV_PRIME)
      shapes.add(shape)
      if (shapes.size > MAX_BODY_SHAPES) {
        throw bodyError(
          'entity.too.complex',
          `The body's objects have more than ${MAX_BODY_SHAPES.toLocaleString('en')} different runs of key names (a name, or an order, new to the body).`,
        )
      }
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++containers > MAX_BODY_CONTAINERS) {
        throw bodyError('entity.too.complex', `The body holds more than ${MAX_BODY_CONTAINERS.toLocaleString('en')} objects and arrays.`)
      }
      outer.push(shape)
      shape = FNV_OFFSET
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      shape = outer.pop() ?? FNV_OFFSET
    }
  }
}

/** An error as body-parser raises it, so that errors.ts answers both readers' failures alike. */
function bodyError(
  type: 'entity.parse.failed' | 'entity.too.complex' | 'request.aborted' | 'charset.unsupported' | 'encoding.not.utf8',
  message: string,
  fields: { body?: string; charset?: string } = {},
): Error {
  return Object.assign(new Error(message), { status: 400, type, ...fields })
}

/**
 * body-parser's `verify` hook, which it calls with the charset it is about
 * to decode the body with (the Content-Type's, as it parses it: any case,
 * quoted or not; UTF-8 without one). Any other is refused as body-parser
 * refuses the ones it does not know (errors.ts: 400 naming it, `param`
 * Content-Type). By itself express.json decodes every `utf-*` (a UTF-8 body
 * labelled UTF-16 became "not valid JSON") and express.urlencoded
 * ISO-8859-1. `us-ascii` is refused too, although UTF-8 holds it: the rule
 * stays one charset, and a body labelled ASCII may hold bytes that are not.
 * Bytes that are not UTF-8 are refused (refuseInvalidUtf8).
 */
export function utf8Only(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== 'utf-8') throw bodyError('charset.unsupported', `unsupported charset "${charset}"`, { charset })
  refuseInvalidUtf8(body)
}

/**
 * Decoding turns bytes that are not UTF-8 into U+FFFD, so a merchant's
 * `caf\xe9` was stored as `caf�` without a word: refused instead, as a
 * body is read as UTF-8 or not at all.
 */
function refuseInvalidUtf8(body: Buffer): void {
  if (!isUtf8(body)) throw bodyError('encoding.not.utf8', 'The body is not valid UTF-8.')
}

/** express.json's `verify`, which it calls on the decompressed bytes before parsing them: UTF-8 only, and not too many containers. */
function checkJsonBytes(req: unknown, res: unknown, body: Buffer, charset: string): void {
  utf8Only(req, res, body, charset)
  refuseTooComplex(body)
}

/**
 * A form field named `__proto__` (or `__proto__[…]`) is refused naming it, as
 * the key is in a JSON body: the form readers drop it without a word, and
 * assigning it to an object's property sets the object's prototype.
 */
export function refuseProtoFieldName(name: string): void {
  if (name === '__proto__' || name.startsWith('__proto__[')) {
    throw invalidRequest(`\`${name}\`: the name \`__proto__\` is not allowed for a form field (it would be dropped silently); rename it.`, name)
  }
}

/** express.urlencoded's `verify`: UTF-8 only, and no field named `__proto__`, which its parser would drop. */
function checkFormBytes(req: unknown, res: unknown, body: Buffer, charset: string): void {
  utf8Only(req, res, body, charset)
  for (const name of new URLSearchParams(body.toString('utf8')).keys()) refuseProtoFieldName(name)
}

/** The urlencoded form reader of the dashboard and the hosted pages (`limit` as `16kb`): flat fields, UTF-8 as JSON is. */
export const formBody = (limit: string): RequestHandler => express.urlencoded({ extended: false, limit, verify: checkFormBytes })

/**
 * The length of a body that needs none of body-parser's generality: JSON
 * (`application/json`, no charset or UTF-8), not compressed, with a
 * Content-Length within the limit. Nearly every API request is such a body;
 * any other goes to express.json as it always did.
 */
function plainJsonLength(req: Request, limit: number): number | undefined {
  const { 'content-type': type, 'content-length': length } = req.headers
  if (length === undefined || type === undefined || req.headers['content-encoding'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
    return undefined
  }
  const lowered = type.toLowerCase()
  if (lowered !== 'application/json' && lowered !== 'application/json; charset=utf-8') return undefined
  // Node's HTTP parser has already refused a Content-Length that is not a number.
  const bytes = Number(length)
  return bytes <= limit ? bytes : undefined
}

/** What body-parser's strict JSON parser makes of a body's text: an object or an array, or its error. */
function parseStrictJson(text: string): unknown {
  // body-parser decodes with iconv-lite, which drops a byte order mark.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let at = 0
  while (at < json.length && ' \t\n\r'.includes(json[at]!)) at++
  if (json[at] !== '{' && json[at] !== '[') throw bodyError('entity.parse.failed', 'The body is not a JSON object or array.', { body: json })
  try {
    return JSON.parse(json)
  } catch (error) {
    throw bodyError('entity.parse.failed', (error as Error).message, { body: json })
  }
}

/**
 * Reads a plain JSON body (plainJsonLength) as body-parser would, and with
 * the same results: `{}` for an empty one, 400 `entity.parse.failed` for
 * anything but a JSON object or array, 400 `request.aborted` when the client
 * goes away. body-parser's content negotiation, iconv decoding and debug
 * calls were about a tenth of a create's CPU (docs/performance.md).
 */
function readPlainJson(req: Request, bytes: number, next: NextFunction): void {
  if (bytes === 0) {
    req.body = {}
    return next()
  }
  const chunks: Buffer[] = []
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk)
  }
  const done = (error?: Error): void => {
    req.off('data', onData)
    req.off('end', onEnd)
    req.off('error', onError)
    if (error) return next(error)
    try {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      refuseInvalidUtf8(bytes)
      refuseTooComplex(bytes)
      req.body = parseStrictJson(bytes.toString('utf8'))
    } catch (parseError) {
      return next(parseError)
    }
    next()
  }
  const onEnd = (): void => done()
  const onError = (): void => done(bodyError('request.aborted', 'request aborted'))
  req.on('data', onData)
  req.once('end', onEnd)
  req.once('error', onError)
}

/**
 * The JSON body parser of every API route (api-route.ts, after the key and
 * the tier are checked): a plain JSON body read directly, any
 * other through express.json (`limit` bytes, 1 MiB unless the route says;
 * the errors of both become 400 and 413 in errors.ts; a charset other than
 * UTF-8 is a 400, utf8Only). Both refuse more than MAX_BODY_CONTAINERS
 * objects and arrays before parsing; then the `__proto__` and depth checks.
 */
export function jsonBody(limit = BODY_LIMIT_BYTES): RequestHandler[] {
  const bodyParser = express.json({ limit, verify: checkJsonBytes })
  return [
    (req, res, next) => {
      const bytes = plainJsonLength(req, limit)
      if (bytes === undefined) bodyParser(req, res, next)
      else readPlainJson(req, bytes, next)
    },
    (req, _res, next) => {
      if (typeof req.body === 'object' && req.body !== null) {
        try {
          checkParsedBody(req.body as object)
        } catch (error) {
          // A refused body is no body: what reads req.body later (the request log's digest of an authenticated
          // call) must not walk a 200,000-deep value, which overflows its stack.
          req.body = undefined
          throw error
        }
      }
      next()
    },
  ]
}
