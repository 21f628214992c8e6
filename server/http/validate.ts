import type { Request } from 'express'
import type { z } from 'zod'
import { invalidRequest } from '../../src/errors.js'
import { fieldPath } from '../../src/field-path.js'
import { headerCount } from './header-count.js'

type Issue = z.core.$ZodIssue

function describe(issue: Issue, where: 'body' | 'query'): { param: string | undefined; message: string } {
  const { path } = issue
  // The query parser makes a parameter given twice a list, which the schema then judges as a bad value: say what it is.
  if (where === 'query' && path.length === 1 && Array.isArray(issue.input)) {
    const name = String(path[0])
    return { param: name, message: `Invalid \`${name}\`: give it once, not ${issue.input.length} times.` }
  }
  if (issue.code === 'unrecognized_keys') {
    const param = fieldPath([...path, issue.keys[0]!])
    return { param, message: `Unknown field \`${param}\`.` }
  }
  const param = path.length > 0 ? fieldPath(path) : undefined
  if (issue.code === 'invalid_key') {
    return { param, message: `Invalid key \`${String(path.at(-1))}\` in \`${fieldPath(path.slice(0, -1))}\`: ${issue.issues[0]?.message ?? issue.message}.` }
  }
  if (issue.code === 'invalid_type' && issue.input === undefined && param !== undefined) {
    return { param, message: `\`${param}\` is required.` }
  }
  return { param, message: param === undefined ? `Invalid request: ${issue.message}.` : `Invalid \`${param}\`: ${issue.message}.` }
}

/**
 * Validates a body or query at the edge with its zod schema (the one source
 * of validation) and turns the first problem into a 400 naming the field.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' = 'body'): z.infer<S> {
  const result = schema.safeParse(value ?? {}, { reportInput: true })
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const { param, message } = describe(issue, where)
  throw invalidRequest(where === 'query' ? message.replace('field', 'query parameter') : message, param)
}

/** `Idempotency-Key`: a string of at least one character (spec); we cap it at 255. */
export function idempotencyKeyOf(req: Request): string {
  // Node joins repeated headers with ", ": two keys would act as a third, "a, b", that the client never sent.
  if (headerCount(req, 'idempotency-key') > 1) throw invalidRequest('Send one Idempotency-Key header, not several.', 'Idempotency-Key')
  const key = req.get('idempotency-key')
  if (key === undefined || key.length === 0) throw invalidRequest('This route needs an Idempotency-Key header.', 'Idempotency-Key')
  if (key.length > 255) throw invalidRequest('Idempotency-Key must be at most 255 characters.', 'Idempotency-Key')
  return key
}
