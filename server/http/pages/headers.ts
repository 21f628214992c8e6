import type { RequestHandler } from 'express'

/**
 * The headers every HTML page of the simulator sends (hosted pages and the
 * dashboard): its Content-Security-Policy, no framing, no caching, no MIME
 * sniffing, and how much of its address other requests may see.
 */
export const htmlPageHeaders =
  (options: { contentSecurityPolicy: string; referrerPolicy: 'no-referrer' | 'same-origin' }): RequestHandler =>
  (_req, res, next) => {
    res.setHeader('Content-Security-Policy', options.contentSecurityPolicy)
    res.setHeader('X-Frame-Options', 'DENY')
    res.setHeader('Referrer-Policy', options.referrerPolicy)
    res.setHeader('Cache-Control', 'no-store')
    res.setHeader('X-Content-Type-Options', 'nosniff')
    next()
  }
