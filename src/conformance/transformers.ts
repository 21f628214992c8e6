/**
 * Named transformers that make a case's recording the same from run to run
 * and from target to target, as LocalStack's snapshot transformers do: ids,
 * secrets, times, URLs and signatures become stable placeholders. A value
 * seen twice gets the same placeholder (`<id:2>` in a body and in a later
 * path is the same object), numbered in order of first appearance, so the
 * recording still shows which object is which.
 *
 * Each transformer runs in two passes over the case's steps: `collect`
 * registers values (an id where it is defined), then `replace` rewrites
 * every leaf, in the order of TRANSFORMERS.
 */

export interface Site {
  /** The object key (or header name) of the leaf; undefined in arrays. */
  key: string | undefined
  /** The object holding the leaf. */
  parent: Record<string, unknown> | undefined
  /** A request path, a body or a delivery header. */
  area: 'path' | 'body' | 'header'
}

export class Registry {
  private readonly values = new Map<string, string>()
  private readonly counts = new Map<string, number>()

  /** The placeholder of this value, making `<kind:N>` on first sight. */
  register(kind: string, value: string): string {
    let placeholder = this.values.get(value)
    if (placeholder === undefined) {
      const count = (this.counts.get(kind) ?? 0) + 1
      this.counts.set(kind, count)
      placeholder = `<${kind}:${count}>`
      this.values.set(value, placeholder)
    }
    return placeholder
  }

  lookup(value: string): string | undefined {
    return this.values.get(value)
  }

  /** Registered values long enough to be replaced inside longer strings, longest first. */
  substrings(): [string, string][] {
    return [...this.values.entries()].filter(([value]) => value.length >= 8).sort((a, b) => b[0].length - a[0].length)
  }
}

export interface TransformContext {
  baseUrl: string
  receiverUrl?: string
}

export interface Transformer {
  name: string
  /** What it replaces, for docs/conformance.md. */
  description: string
  collect?(value: unknown, site: Site, registry: Registry): void
  replace?(value: unknown, site: Site, registry: Registry, context: TransformContext): unknown
}

const ID_KEY = /^(id|event_id|[a-z]+Id)$/
const SECRET_PATTERN = /\b(?:sk|pk)_(?:test|live)_[A-Za-z0-9]{8,}|\bwhsec_[A-Za-z0-9]{8,}/g
const INVOICE_NUMBER = /\bINV-[0-9]+\b/g
const TIMESTAMP_KEY = /^([a-z][A-Za-z]*At|asOf|now)$/
const URL_KEYS = new Set(['hostedUrl', 'url', 'pdfUrl'])

const isScalarId = (value: unknown): value is string | number => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))

/** Splits `/v1/x/1?a=b` into its segments and query pairs, maps each, and joins them again. */
function mapPath(path: string, segment: (part: string) => string, query: (name: string, value: string) => string): string {
  const [pathname = '', search] = path.split('?', 2)
  const mapped = pathname.split('/').map((part) => (part === '' ? part : segment(decodeURIComponent(part)))).join('/')
  if (search === undefined) return mapped
  const pairs = search.split('&').map((pair) => {
    const [name = '', value = ''] = pair.split('=', 2)
    return `${name}=${query(name, decodeURIComponent(value))}`
  })
  return `${mapped}?${pairs.join('&')}`
}

export const TRANSFORMERS: readonly Transformer[] = [
  {
    name: 'ids',
    description: 'Object ids (`id`, `event_id`, `…Id` fields, integer Invoice ids too) become `<id:N>`, wherever they appear afterwards: paths, URLs, headers.',
    collect(value, site, registry) {
      if (site.area === 'body' && site.key !== undefined && ID_KEY.test(site.key) && isScalarId(value)) registry.register('id', String(value))
      if (site.area === 'header' && site.key === 'x-service-event-id' && typeof value === 'string') registry.register('id', value)
    },
  },
  {
    name: 'secrets',
    description: 'API keys (`sk_…`, `pk_…`) and signing secrets (`whsec_…`) become `<secret:N>`; masked keys (`masked`) `<masked-key>`.',
    collect(value, _site, registry) {
      if (typeof value === 'string') for (const match of value.matchAll(SECRET_PATTERN)) registry.register('secret', match[0])
    },
    replace(value, site) {
      return site.key === 'masked' && typeof value === 'string' ? '<masked-key>' : value
    },
  },
  {
    name: 'invoice-numbers',
    description: 'Invoice numbers (`INV-<digits>`) become `<invoice-number:N>`: the recording still shows a number kept after void, or a new one.',
    collect(value, _site, registry) {
      if (typeof value === 'string') for (const match of value.matchAll(INVOICE_NUMBER)) registry.register('invoice-number', match[0])
    },
  },
  {
    name: 'idempotency-keys',
    description: 'The suite\'s `Idempotency-Key`s become `<idempotency-key:N>`, so a replay shows as the same key.',
    collect(value, site, registry) {
      if (site.key === 'idempotencyKey' && typeof value === 'string') registry.register('idempotency-key', value)
    },
  },
  {
    name: 'cursors',
    description: 'Opaque list cursors (`nextCursor`, `cursor=`) become `<cursor:N>`.',
    collect(value, site, registry) {
      if (site.key === 'nextCursor' && typeof value === 'string') registry.register('cursor', value)
    },
  },
  {
    name: 'timestamps',
    description: 'Times (`…At`, `asOf`, `now` fields, the `from`/`to` query) become `<timestamp>`; `Service-Timestamp` becomes `<unix-seconds>`; `dueDate` becomes `<date>`.',
    replace(value, site) {
      if (site.area === 'header') return site.key === 'service-timestamp' ? '<unix-seconds>' : value
      if (site.key !== undefined && TIMESTAMP_KEY.test(site.key) && typeof value === 'number') return '<timestamp>'
      if (site.key === 'dueDate' && typeof value === 'string') return '<date>'
      return value
    },
  },
  {
    name: 'quote-rates',
    description: 'A quote\'s `rate` becomes `<rate>` and the converted `amount` of a session with a quote `<converted-amount>`: rates are the target\'s own.',
    replace(value, site) {
      if (site.area !== 'body' || !site.parent) return value
      if (site.key === 'rate' && typeof value === 'string' && 'asOf' in site.parent) return '<rate>'
      if (site.key === 'amount' && typeof value === 'number' && typeof site.parent.quote === 'object' && site.parent.quote !== null && 'hostedUrl' in site.parent) {
        return '<converted-amount>'
      }
      return value
    },
  },
  {
    name: 'error-messages',
    description: 'An error\'s `message` becomes `<message>`: the spec calls it human-readable and not contractual.',
    replace(value, site) {
      return site.key === 'message' && site.parent !== undefined && 'code' in site.parent && typeof value === 'string' ? '<message>' : value
    },
  },
  {
    name: 'urls',
    description: 'Addresses the target makes (`hostedUrl`, `url`, `pdfUrl`, and any value starting with its base URL) become `<url>` (null stays null); the target\'s base URL elsewhere becomes `<base-url>`, the receiver\'s `<receiver-url>`.',
    replace(value, site, _registry, context) {
      if (typeof value !== 'string') return value
      if (site.area === 'body' && ((site.key !== undefined && URL_KEYS.has(site.key)) || value.startsWith(`${context.baseUrl}/`))) return '<url>'
      let text = value.split(context.baseUrl).join('<base-url>')
      if (context.receiverUrl) text = text.split(context.receiverUrl).join('<receiver-url>')
      return text
    },
  },
  {
    name: 'signatures',
    description: 'Each `v1=<hex>` of `Service-Signature` becomes `v1=<signature>`; how many there are stays visible.',
    replace(value, site) {
      return site.area === 'header' && site.key === 'service-signature' && typeof value === 'string' ? value.replace(/v1=[0-9a-f]+/g, 'v1=<signature>') : value
    },
  },
  {
    name: 'registered-values',
    description: 'Every value registered above is replaced wherever it appears again: whole path segments and query values (integer ids too), and inside longer strings.',
    replace(value, site, registry) {
      if (site.area === 'path' && typeof value === 'string') {
        return mapPath(
          value,
          (part) => registry.lookup(part) ?? part,
          (name, query) => {
            if (name === 'from' || name === 'to') return '<timestamp>'
            return name === 'starting_after' || name === 'cursor' ? (registry.lookup(query) ?? query) : query
          },
        )
      }
      if (isScalarId(value) && site.key !== undefined && (ID_KEY.test(site.key) || site.area === 'header')) {
        const whole = registry.lookup(String(value))
        if (whole !== undefined) return whole
      }
      if (typeof value !== 'string') return value
      const whole = registry.lookup(value)
      if (whole !== undefined) return whole
      let text = value
      for (const [raw, placeholder] of registry.substrings()) text = text.split(raw).join(placeholder)
      return text
    },
  },
]

type Visit = (value: unknown, site: Site) => unknown

/** Walks a step, calling `visit` on each leaf with where it is; returns the rebuilt step. */
function walkStep(step: unknown, visit: Visit): unknown {
  const walk = (value: unknown, site: Site): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, { key: undefined, parent: undefined, area: site.area }))
    if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>
      return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, walk(inner, { key, parent: object, area: site.area })]))
    }
    return visit(value, site)
  }
  if (step === null || typeof step !== 'object') return step
  const { request, response, delivery, ...rest } = step as Record<string, Record<string, unknown> | undefined>
  const out: Record<string, unknown> = { ...rest }
  if (request) {
    out.request = {
      ...walk({ ...request, path: undefined }, { key: undefined, parent: undefined, area: 'body' }) as object,
      path: visit(request.path, { key: 'path', parent: request, area: 'path' }),
    }
    // Keep the path where a reader looks for it: right after the method.
    const { method, path, ...others } = out.request as Record<string, unknown>
    out.request = { method, path, ...Object.fromEntries(Object.entries(others).filter(([, inner]) => inner !== undefined)) }
  }
  if (response) out.response = walk(response, { key: undefined, parent: undefined, area: 'body' })
  if (delivery) {
    const headers = Object.fromEntries(
      Object.entries((delivery.headers ?? {}) as Record<string, string>).map(([name, value]) => [name, visit(value, { key: name, parent: undefined, area: 'header' })]),
    )
    out.delivery = { headers, body: walk(delivery.body, { key: undefined, parent: undefined, area: 'body' }) }
  }
  return out
}

/** The case's steps with every transformer applied. */
export function normalizeSteps(steps: readonly unknown[], context: TransformContext): unknown[] {
  const registry = new Registry()
  for (const step of steps) {
    walkStep(step, (value, site) => {
      for (const transformer of TRANSFORMERS) transformer.collect?.(value, site, registry)
      return value
    })
  }
  return steps.map((step) =>
    walkStep(step, (value, site) => TRANSFORMERS.reduce((current, transformer) => (transformer.replace ? transformer.replace(current, site, registry, context) : current), value)),
  )
}
