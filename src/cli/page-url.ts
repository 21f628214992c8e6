import { ApiError } from '../errors.js'
import { isLoopbackHostname } from '../loopback.js'
import { printable } from '../terminal-text.js'

/**
 * Whether a host name is this machine's. A simulator builds its links from
 * the address it listens on (`127.0.0.1`, or `0.0.0.0` in a container),
 * while the CLI may reach it as `localhost`: the same simulator, by another name.
 */
const isThisMachine = (hostname: string): boolean => isLoopbackHostname(hostname) || hostname === '0.0.0.0' || hostname === '[::]'

/**
 * `url`, a page link the simulator at `baseUrl` answered in `field` (a
 * session's `hostedUrl`, an Invoice's `url`, a dashboard sign-in link), once
 * it is safe to print for opening or to hand to the system opener: an
 * absolute http(s) URL of that simulator, without a user name, written as a
 * URL parser writes it.
 * The opener starts whatever it is given (`file:///etc/passwd`, an `smb://`
 * share, another site), so anything else is refused as unexpected_response,
 * naming the URL escaped.
 */
export function simulatorPageUrl(url: string, baseUrl: string, field: string): string {
  if (isSimulatorPage(url, new URL(baseUrl))) return url
  throw new ApiError(
    0,
    'unexpected_response',
    `The simulator at ${baseUrl} answered a ${field} that bula does not open: "${printable(url)}". ` +
      `Only an http(s) URL of ${new URL(baseUrl).origin} is opened or printed.`,
  )
}

function isSimulatorPage(url: string, base: URL): boolean {
  if (!URL.canParse(url)) return false
  const page = new URL(url)
  // A parser rewrites what it would not send as is (a space, a control character), so such a URL is refused, not repaired.
  if (page.href !== url || (page.protocol !== 'http:' && page.protocol !== 'https:')) return false
  // The simulator's links never carry one; in a link shown to be opened, a user name only disguises the host.
  if (page.username !== '' || page.password !== '') return false
  if (page.origin === base.origin) return true
  return page.protocol === base.protocol && page.port === base.port && isThisMachine(page.hostname) && isThisMachine(base.hostname)
}
