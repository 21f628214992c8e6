import { hash } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import type { Caller, ServiceContext } from '../context.js'
import { newId } from '../ids.js'
import { struckFaultOf } from './faults.js'

/**
 * A URL as the logs keep it. A dashboard login link works once, but a log
 * line outlives it: the token stays out. So do an API key and a signing
 * secret that a client put in the address (`?key=sk_test_…`: refused, but
 * the line was written with the key in it), cut to their prefix.
 */
const withoutSecrets = (url: string): string =>
  url.replace(/^\/dashboard\/login\/[^/?#]+/, '/dashboard/login/…').replace(/\b((?:sk|pk)_(?:test|live)_|whsec_)[0-9A-Za-z]+/g, '$1…')

/**
 * JSON with object keys sorted, so one body digests the same however a
 * client orders its fields. Written out directly: a JSON.stringify replacer
 * building sorted copies cost every create about 1 % of its CPU, and
 * map/join's arrays half a kilobyte more garbage than these strings.
 */
function sortedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) {
    let items = ''
    for (let i = 0; i < value.length; i++) items += (i === 0 ? '' : ',') + sortedJson(value[i])
    return `[${items}]`
  }
  const object = value as Record<string, unknown>
  let members = ''
  for (const key of Object.keys(object).sort()) members += `${members === '' ? '' : ','}${JSON.stringify(key)}:${sortedJson(object[key])}`
  return `{${members}}`
}

/** What tells a retry of a request from another request, kept instead of the body (which may hold a customer's e-mail). */
const requestDigest = (req: Request): string => hash('sha256', `${req.method} ${req.originalUrl.split('?')[0]}\n${sortedJson(req.body ?? {})}`, 'base64url')

function retryAfterOf(res: Response): number | null {
  const value = Number(res.getHeader('retry-after'))
  return Number.isFinite(value) && value > 0 ? value : null
}

/**
 * Gives every request its id (`X-Request-Id`), writes the log line, and
 * records each authenticated call in the merchant's request log when it
 * ends: when its answer is sent, or, for a call whose connection an API
 * fault closed, when the connection goes, since no answer is ever sent.
 */
export function requestLogging(ctx: ServiceContext, options: { log: (line: string) => void; logRequests: boolean }): RequestHandler {
  return (req, res, next) => {
    const requestId = newId('req')
    res.setHeader('X-Request-Id', requestId)
    const started = process.hrtime.bigint()
    let logged = false
    const ended = (): void => {
      if (logged) return
      logged = true
      const latencyMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100
      const fault = struckFaultOf(res)
      // A lost answer is logged with what the work came to; a request that ran nothing and answered nothing (a reset,
      // or a client that left during a delay) with 0.
      const status = res.writableFinished || fault?.action === 'lose_response' ? res.statusCode : 0
      if (options.logRequests) {
        options.log(`${req.method} ${withoutSecrets(req.originalUrl)} ${status} ${latencyMs}ms ${requestId}${fault ? ` fault ${fault.action} ${fault.id}` : ''}`)
      }
      const caller = res.locals.caller as Caller | undefined
      if (!caller) return
      const idempotencyKey = req.get('idempotency-key') ?? null
      ctx.requestLog.record({
        merchantId: caller.merchant.id,
        at: ctx.clock.now(caller.merchant.id),
        mode: caller.mode,
        method: req.method,
        path: withoutSecrets(req.originalUrl),
        status,
        latencyMs,
        idempotencyKey,
        requestId,
        fault: fault ? { id: fault.id, action: fault.action } : null,
        keyId: caller.key.id,
        requestDigest: idempotencyKey === null ? null : requestDigest(req),
        objectId: (res.locals.objectId as string | undefined) ?? null,
        replayed: res.getHeader('idempotent-replayed') === 'true',
        retryAfterS: res.statusCode === 429 ? retryAfterOf(res) : null,
        // oclif's user agent, `bula-tools/0.1.0 linux-x64 node-v24.11.0`.
        byBulaCli: req.get('user-agent')?.startsWith('bula-tools/') ?? false,
      })
    }
    res.on('finish', ended)
    res.on('close', () => {
      if (struckFaultOf(res)) ended()
    })
    next()
  }
}
