import { isLoopbackHostname } from '../../src/loopback.js'
import type { Mode } from '../../src/schemas/index.js'

/**
 * HTTPS everywhere the spec asks for it; test mode also accepts http on
 * loopback (`localhost`, `127.0.0.1`, `[::1]`) and on the names given with
 * `--allowed-host` (say, compose services), so local apps and receivers work
 * (docs/simulator.md, "http URLs of allowed hosts in test mode").
 */
export function isAllowedUrl(url: string, mode: Mode, allowedHosts: readonly string[]): boolean {
  const parsed = new URL(url)
  if (parsed.protocol === 'https:') return true
  if (mode !== 'test' || parsed.protocol !== 'http:') return false
  return isLoopbackHostname(parsed.hostname) || allowedHosts.includes(parsed.hostname)
}

/**
 * A URL with a user name or password, which fetch refuses to call: a webhook
 * endpoint can never have one. An empty one (`https://@example.com/`) too:
 * the URL parser drops it, but the endpoint would be stored as typed.
 */
export const hasCredentials = (url: string): boolean => {
  const parsed = new URL(url)
  return parsed.username !== '' || parsed.password !== '' || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)
}

/**
 * A host name as the Host check takes it (server/http/host-check.ts), lower
 * case: letters, digits, dots and hyphens (underscores too, as container
 * names have them), or a bracketed IPv6 literal.
 */
export const HOST_NAME = /\[[0-9a-f:.]+\]|[a-z0-9._-]+/

/**
 * An `--allowed-host` value as URLs and Host headers spell it: lower case,
 * no scheme, port or path (`app`, `api.test`, `10.0.0.5`, `[fd00::5]`), of
 * the characters the Host check takes (HOST_NAME). Anything else could never
 * match, so it is refused rather than ignored.
 */
export function allowedHostName(input: string): string {
  let hostname: string | undefined
  try {
    hostname = new URL(`http://${input}`).hostname
  } catch {
    hostname = undefined
  }
  if (input === '' || hostname !== input.toLowerCase() || !new RegExp(`^(?:${HOST_NAME.source})$`).test(hostname)) {
    throw new Error(`Invalid allowed host "${input}": give a host name alone, without scheme, port or path, e.g. --allowed-host app.`)
  }
  return hostname
}
