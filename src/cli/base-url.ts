import type { Connection } from '../config/profiles.js'
import { ApiError } from '../errors.js'

// The user-info part of any http(s) URL in a text: `user:password@` of `http://user:password@host`.
const URL_CREDENTIALS = /\b(https?:\/\/)[^/?#@\s]+@/gi

/**
 * A text, or one base URL, with the credentials of every URL in it masked
 * (`http://***@127.0.0.1:4111`): the CLI prints base URLs in its answers and
 * errors, and a password given in one must not end up in a terminal or a CI log.
 */
export const maskUrlCredentials = (text: string): string => text.replace(URL_CREDENTIALS, '$1***@')

/**
 * Refuses a base URL whose path ends in /v1: the client adds /v1 to every
 * call, so it would ask for /v1/v1/… and get a bare "No route". Other paths
 * stay allowed, as a simulator or the service may sit under a proxy's prefix.
 * `origin` (describeBaseUrlOrigin) says where the address came from.
 */
export function assertBaseUrlIsRoot(baseUrl: Connection['baseUrl'], origin: string): void {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
  if (url === undefined || !/\/v1\/*$/.test(url.pathname)) return
  const root = new URL(url.pathname.replace(/\/v1\/*$/, '') || '/', url).href.replace(/\/$/, '')
  throw new ApiError(
    0,
    'invalid_base_url',
    `The base URL ${maskUrlCredentials(baseUrl)} ends in /v1: give the simulator's root, without /v1 (${maskUrlCredentials(root)}), ` +
      `as every call adds /v1 itself. ${origin}`,
  )
}
