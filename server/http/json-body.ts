import express, { type RequestHandler } from 'express'
import { invalidRequest } from '../../src/errors.js'

/**
 * How deep objects and arrays may nest in a body. Far above what any route
 * takes (a state file for `/_sim/state/import` nests about six levels), and
 * far below what a recursive JSON.stringify or schema check can survive:
 * JSON.parse reads a 200,000-deep array happily, what comes after would not.
 */
export const MAX_BODY_DEPTH = 64

/** An object or array in the body, with the way back to the root for naming its path. */
interface Container {
  value: object
  depth: number
  parent?: Container
  /** `.key` or `[index]`; the root has none. */
  segment?: string
}

/** `metadata.__proto__`, `items[0].__proto__`, `__proto__` at the top. */
function pathOf(container: Container, lastSegment: string): string {
  const segments = [lastSegment]
  for (let at: Container | undefined = container; at?.segment !== undefined; at = at.parent) segments.push(at.segment)
  return segments.reverse().join('').replace(/^\./, '')
}

/**
 * JSON.parse keeps a `__proto__` key as an ordinary own property, but zod
 * builds its output by assignment, and assigning `__proto__` sets the
 * prototype instead: the key vanished without a word (docs/security.md). So a
 * parsed body with a `__proto__` key in any object is refused. The walk
 * keeps its own stack and checks the depth as it goes, never recursing.
 */
function checkParsedBody(body: object): void {
  const stack: Container[] = [{ value: body, depth: 1 }]
  while (stack.length > 0) {
    const container = stack.pop()!
    if (container.depth > MAX_BODY_DEPTH) {
      throw invalidRequest(`The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep; no route takes that.`)
    }
    const children: Container[] = []
    const add = (value: unknown, segment: string): void => {
      if (typeof value === 'object' && value !== null) children.push({ value, depth: container.depth + 1, parent: container, segment })
    }
    if (Array.isArray(container.value)) {
      container.value.forEach((item, index) => add(item, `[${index}]`))
    } else {
      if (Object.hasOwn(container.value, '__proto__')) {
        const param = pathOf(container, '.__proto__')
        throw invalidRequest(`\`${param}\`: the key \`__proto__\` is not allowed anywhere in a body (JavaScript would drop it silently); rename it.`, param)
      }
      for (const [key, value] of Object.entries(container.value)) add(value, `.${key}`)
    }
    // Pushed last to first, so the body is walked in document order and the first problem is the one reported;
    // one by one, as spreading a 300,000-item array into push() overflows the call stack.
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!)
  }
}

/**
 * The JSON body parser of every route: express.json (1 MiB; its errors
 * become 400 and 413 in errors.ts), then the `__proto__` and depth checks.
 */
export function jsonBody(): RequestHandler[] {
  return [
    express.json({ limit: '1mb' }),
    (req, _res, next) => {
      if (typeof req.body === 'object' && req.body !== null) checkParsedBody(req.body as object)
      next()
    },
  ]
}
