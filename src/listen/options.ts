import { EVENT_TYPES } from '../schemas/enums.js'

const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//
/** `http//…`, `https:/…`, `http:…`: a scheme typed with its `://` wrong, which `http://` put in front would make a host named http. */
const MISTYPED_SCHEME = /^(https?)(:\/?|\/\/?)(?=[^/])/i
/**
 * What a receiver's host can be: a name of letters, digits, hyphens, dots
 * and underscores (Docker names its services with them; IDNs come as
 * punycode), or an IP address.
 */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)$/

/** `--forward-to`: an http(s) URL; `localhost:3000/webhooks` means http://localhost:3000/webhooks. */
export function parseForwardUrl(input: string): string {
  const text = input.trim()
  const hasScheme = HAS_SCHEME.test(text)
  const mistyped = hasScheme ? null : MISTYPED_SCHEME.exec(text)
  if (mistyped) {
    throw new Error(`Invalid --forward-to "${input}": its scheme is mistyped; did you mean ${mistyped[1]!.toLowerCase()}://${text.slice(mistyped[0].length)}?`)
  }
  const withScheme = hasScheme ? text : `http://${text}`
  const url = URL.canParse(withScheme) ? new URL(withScheme) : undefined
  if ((url?.protocol !== 'http:' && url?.protocol !== 'https:') || !HOST.test(url.hostname)) {
    throw new Error(`Invalid --forward-to "${input}": use your receiver's http(s) URL, e.g. http://localhost:3000/webhooks.`)
  }
  return url.href
}

/** `--events a,b`: known event types, comma-separated. */
export function parseEventTypes(input: string): string[] {
  const types = input
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '')
  const unknown = types.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type))
  if (types.length === 0 || unknown.length > 0) {
    throw new Error(`Unknown event type ${unknown.map((type) => `"${type}"`).join(', ') || '(none given)'}: choose from ${EVENT_TYPES.join(', ')}.`)
  }
  return [...new Set(types)]
}
