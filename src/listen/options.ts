import { EVENT_TYPES } from '../schemas/enums.js'

const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

/** `--forward-to`: an http(s) URL; `localhost:3000/webhooks` means http://localhost:3000/webhooks. */
export function parseForwardUrl(input: string): string {
  const text = input.trim()
  const withScheme = HAS_SCHEME.test(text) ? text : `http://${text}`
  const url = URL.canParse(withScheme) ? new URL(withScheme) : undefined
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
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
