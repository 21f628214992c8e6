import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * Every answer the HTTP tests receive through `call()` is checked against the
 * simulator's own /openapi.json (issue 13): the status is documented for the
 * operation, the documented required headers are there, and a JSON body
 * matches the documented schema, with no field the document does not name.
 * What does not conform is collected here and fails the test file
 * (test/setup/conformance.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON; the checker walks it freely
type Json = any

interface Operation {
  pattern: RegExp
  method: string
  path: string
  pointer: string
  operation: Json
}

interface Checker {
  operations: Operation[]
  document: Json
  ajv: Ajv2020
  validators: Map<string, ValidateFunction>
}

/** By base URL: each simulator's document is fetched once. */
const checkers = new Map<string, Promise<Checker>>()
/**
 * By the document, its `servers` (the base URL) left out: every simulator of
 * one build describes the same API, and compiling its schemas is most of
 * the checking's cost (ajv writes and compiles a function per schema), so
 * they compile once per test worker rather than once per simulator started.
 */
const checkersByDocument = new Map<string, Checker>()
const violations: string[] = []

/** What did not conform so far, and forget it. */
export function takeViolations(): string[] {
  return violations.splice(0)
}

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * Response objects of the document are open by default (the input side of
 * the zod schemas, as docs/openapi.md says); for checking what the server
 * sends, each object schema that names its properties is closed, so a field
 * the document does not declare is caught.
 */
function closeObjects(node: Json): Json {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (node === null || typeof node !== 'object') return node
  const out: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closeObjects(value)]))
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.unevaluatedProperties = false
  return out
}

async function checkerFor(baseUrl: string): Promise<Checker> {
  let checker = checkers.get(baseUrl)
  if (!checker) {
    checker = (async () => {
      const document: Json = await (await fetch(`${baseUrl}/openapi.json`)).json()
      const key = JSON.stringify({ ...document, servers: undefined })
      const known = checkersByDocument.get(key)
      if (known) return known
      const ajv = new Ajv2020({ strict: false, allErrors: false })
      addFormats.default(ajv)
      ajv.addSchema({ $id: 'bula:openapi', components: closeObjects(document.components) })
      const operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
          method: method.toUpperCase(),
          path,
          pointer: `#/paths/${escapePointer(path)}/${method}`,
          operation,
        })),
      )
      const made = { operations, document, ajv, validators: new Map() }
      checkersByDocument.set(key, made)
      return made
    })()
    checkers.set(baseUrl, checker)
  }
  return checker
}

/**
 * A response's schema, its `$ref`s pointed at the document's (closed)
 * components. Not closed itself: the error responses narrow the envelope
 * with `allOf`, and a closed branch would refuse what its sibling declares.
 */
function validatorFor(checker: Checker, schema: Json): ValidateFunction {
  const key = JSON.stringify(schema)
  let validator = checker.validators.get(key)
  if (!validator) {
    validator = checker.ajv.compile(JSON.parse(key.replace(/"#\/components\//g, '"bula:openapi#/components/')))
    checker.validators.set(key, validator)
  }
  return validator
}

const resolve = (document: Json, value: Json): Json =>
  typeof value?.$ref === 'string'
    ? value.$ref
        .slice(2)
        .split('/')
        .reduce((node: Json, segment: string) => node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')], document)
    : value

/** Checks one answer; a path the document does not describe (a hosted page, an unknown route) is not the document's to judge. */
export async function checkConformance(baseUrl: string, method: string, url: string, status: number, headers: Headers, body: unknown): Promise<void> {
  const path = new URL(url, baseUrl).pathname
  if (path === '/openapi.json') return
  const checker = await checkerFor(baseUrl)
  const found = checker.operations.find((operation) => operation.method === method.toUpperCase() && operation.pattern.test(path))
  if (!found) return
  const where = `${method.toUpperCase()} ${found.path} → ${status}`
  const response = resolve(checker.document, found.operation.responses[String(status)])
  if (!response) {
    violations.push(`${where}: status not documented (documented: ${Object.keys(found.operation.responses).join(', ')})`)
    return
  }
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    if (resolve(checker.document, header).required && !headers.has(name)) violations.push(`${where}: required header ${name} missing`)
  }
  const contentType = headers.get('content-type') ?? ''
  if (!contentType.startsWith('application/json')) return
  const schema = response.content?.['application/json']?.schema
  if (!schema) {
    violations.push(`${where}: answered JSON, documented ${Object.keys(response.content ?? {}).join(', ') || 'no content'}`)
    return
  }
  const validate = validatorFor(checker, schema)
  if (!validate(body)) violations.push(`${where}: ${checker.ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 200)}`)
}
