import { apiError } from '../domain/error-catalog.js'
import type { Request, RequestHandler } from 'express'
import { isIP } from 'node:net'
import { ApiError, invalidRequest } from '../../src/errors.js'
import { HOST_NAME } from '../domain/urls.js'
import { escapeHtml } from '../templates.js'
import { headerCount } from './header-count.js'
import { htmlPageHeaders } from './pages/headers.js'

/**
 * A whole Host value (RFC 9110 7.2, RFC 3986 3.2.2): a HOST_NAME, then an
 * optional `:port`. Nothing else may
 * follow: `evil.example/.localhost` or `localhost:80@evil.example` would
 * otherwise read as a local name to this check and as evil.example to a
 * proxy that routes on the whole value.
 */
const HOST_VALUE = new RegExp(`^(${HOST_NAME.source})(?::[0-9]*)?$`)

/**
 * The name part of a Host header, lower case, without the port; IPv6
 * literals keep their brackets, as URLs write them. Undefined when the value
 * is not a host (HOST_VALUE).
 */
function hostnameOf(host: string): string | undefined {
  return HOST_VALUE.exec(host.trim().toLowerCase())?.[1]
}

/**
 * The authority a request names: an absolute-form target's (`GET
 * http://name/path`, as a client sends to a proxy), which HTTP has a server
 * use instead of Host (RFC 9112, 3.2.2), else the Host header. A target
 * that does not parse names no host.
 */
function authorityOf(req: Request): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(req.url)) return req.headers.host
  try {
    return new URL(req.url).host
  } catch {
    return ''
  }
}

const isIpLiteral = (hostname: string): boolean =>
  hostname.startsWith('[') ? isIP(hostname.slice(1, -1)) === 6 : isIP(hostname) === 4

/**
 * DNS rebinding: a page on an attacker's name that later resolves to
 * 127.0.0.1 is same-origin with this server in the browser, but its
 * requests still carry the attacker's name in `Host`. So, as Vite does:
 * IP literals pass (a browser sends one only when the page's own origin is
 * that address), `localhost` and `*.localhost` pass (browsers resolve them
 * to loopback without DNS), and any other name must be listed.
 */
function isHostAllowed(hostname: string, allowedNames: readonly string[]): boolean {
  return (
    isIpLiteral(hostname) || hostname === 'localhost' || hostname.endsWith('.localhost') || allowedNames.includes(hostname)
  )
}

function refusal(authority: string | undefined, hostname: string | undefined): ApiError {
  const message =
    authority === undefined || authority.trim() === ''
      ? 'This request has no host name in its Host header, so it is refused (the simulator checks Host against DNS rebinding). ' +
        'Send HTTP/1.1 with a Host header; to reach the simulator by a name other than localhost or an IP address, start bula serve with --allowed-host <name>.'
      : hostname === undefined
        ? `Host ${JSON.stringify(authority.slice(0, 100))} is not a host name: send a name or an IP address, then an optional :port, and nothing else.`
        : `Host "${hostname}" is not allowed: the simulator answers localhost, IP addresses and the names it was started with, against DNS rebinding. ` +
        `If you reach it by this name on purpose (a compose service, a LAN name), start bula serve with --allowed-host ${hostname}.`
  return apiError('host_not_allowed', message)
}

const refusalPageHeaders = htmlPageHeaders({ contentSecurityPolicy: "default-src 'none'", referrerPolicy: 'no-referrer' })

/**
 * Refuses, with 403 `host_not_allowed`, every request whose Host is not an
 * IP literal, `localhost`/`*.localhost` or one of `allowedNames`; a browser
 * gets the same message as a small page. Two Host headers, or none on
 * HTTP/1.1, are 400 `invalid_request` (`param: "Host"`). Runs before any route or body
 * parser, so no surface (API, `/_sim`, pages, dashboard) answers a rebound name.
 */
export function hostCheck(allowedNames: readonly string[]): RequestHandler {
  return (req, res, next) => {
    // Node keeps the first of two Host headers; a proxy in front reading the other would route by a name this check never saw.
    if (headerCount(req, 'host') > 1) {
      next(invalidRequest('Send one Host header, not several.', 'Host'))
      return
    }
    // HTTP/1.1 requires Host (RFC 9112): a 400, where HTTP/1.0's missing Host is refused below as unknown.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      next(invalidRequest('An HTTP/1.1 request needs a Host header: send one naming the simulator, such as Host: 127.0.0.1.', 'Host'))
      return
    }
    const authority = authorityOf(req)
    const hostname = authority === undefined ? undefined : hostnameOf(authority)
    if (hostname !== undefined && isHostAllowed(hostname, allowedNames)) {
      next()
      return
    }
    const error = refusal(authority, hostname)
    if (req.accepts(['json', 'html']) !== 'html') {
      next(error)
      return
    }
    refusalPageHeaders(req, res, () => {
      res
        .status(error.status)
        .type('html')
        .send(
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host not allowed</title></head>' +
            `<body><h1>Host not allowed</h1><p>${escapeHtml(error.message)}</p></body></html>\n`,
        )
    })
  }
}
