import { apiError } from '../domain/error-catalog.js'
import type { RequestHandler, Response } from 'express'
import type { Caller, ServiceContext } from '../context.js'
import { parseKeyPrefix } from '../domain/api-key.js'
import { findUsableKey, keyStillUsable } from '../services/api-keys.js'
import { headerCount } from './header-count.js'

/**
 * What a 401 asks for (RFC 9110 §11.6.1, RFC 6750 §3): a bearer token, and
 * for a token that did not authenticate, why.
 */
const CHALLENGE = { missing: 'Bearer realm="bula"', invalid: 'Bearer realm="bula", error="invalid_token"' } as const

/**
 * Bearer authentication (docs/simulator.md, "Merchants and keys"). Publishable keys may only create
 * Checkout Sessions and drive the hosted pages; a route opts in with
 * `allowPublishable`.
 */
export function authenticate(ctx: ServiceContext, options: { allowPublishable?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    const header = req.get('authorization')
    if (!header) {
      next(
        apiError('missing_api_key', 'Send your API key as `Authorization: Bearer sk_test_...`.', { headers: {
          'WWW-Authenticate': CHALLENGE.missing,
        } }),
      )
      return
    }
    // Node keeps the first of two Authorization headers and drops the other; a proxy in front that reads the other
    // would have let the request through for another key. Two are no key at all, whichever they are.
    if (headerCount(req, 'authorization') > 1) {
      next(apiError('invalid_api_key', 'Send one Authorization header, not several.', { headers: { 'WWW-Authenticate': CHALLENGE.invalid } }))
      return
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!match) {
      next(malformedAuthorization(header))
      return
    }
    const plaintext = match[1]
    const key = plaintext && parseKeyPrefix(plaintext) ? findUsableKey(ctx, plaintext) : undefined
    const merchant = key && ctx.store.get('merchants', key.merchantId)
    if (!key || !merchant) {
      next(invalidApiKey())
      return
    }
    if (key.type === 'publishable' && !options.allowPublishable) {
      next(
        apiError('publishable_key_forbidden', 'A publishable key may only create Checkout Sessions; use a secret key on your server.', { type: 'permission_error' }),
      )
      return
    }
    const caller: Caller = { merchant, key, mode: key.mode }
    res.locals.caller = caller
    next()
  }
}

/**
 * Still invalid_api_key, as the spec has no other code for it, but saying what is wrong with the header: a key sent
 * without `Bearer ` (or as Basic credentials, which some HTTP clients default to) otherwise reads as a bad key.
 */
function malformedAuthorization(header: string) {
  const [scheme = '', ...rest] = header.trim().split(/\s+/)
  const message = /^(sk|pk)_(test|live)_/.test(scheme)
    ? 'The Authorization header holds a key without its scheme: send `Authorization: Bearer <key>`.'
    : !/^bearer$/i.test(scheme)
      ? 'The Authorization header must be `Bearer <key>`; other schemes (Basic, …) are not taken.'
      : rest.length === 0
        ? 'The Authorization header says Bearer but holds no key: send `Authorization: Bearer <key>`.'
        : 'The Authorization header must be `Bearer <key>`: one key, with no space in it.'
  return apiError('invalid_api_key', message, { headers: { 'WWW-Authenticate': CHALLENGE.invalid } })
}

const invalidApiKey = () =>
  apiError('invalid_api_key', 'The API key is unknown, revoked or past its rotation overlap.', { headers: { 'WWW-Authenticate': CHALLENGE.invalid } })

/**
 * The key is checked again once the body has arrived, just before the
 * route acts: a request whose body was still coming in when its key was
 * revoked (or its overlap ended) must not act with it, as a revoked key
 * could otherwise mint a fresh one by trickling its body across the revoke.
 */
export function requireKeyStillUsable(ctx: ServiceContext, caller: Caller): void {
  if (!keyStillUsable(ctx, caller.key)) throw invalidApiKey()
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined
  if (!caller) throw new Error('route used callerOf without authenticate()')
  return caller
}
