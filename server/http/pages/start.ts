import type { Request, RequestHandler } from 'express'
import { apiError } from '../../domain/error-catalog.js'
import type { ServiceContext } from '../../context.js'
import { safe } from '../../templates.js'
import { htmlPageHeaders } from './headers.js'

/** The dashboard's stylesheet: the start page is a card like its sign-in page. */
const STYLESHEETS = '/dashboard/assets'

const pageHeaders = htmlPageHeaders({
  contentSecurityPolicy: "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  referrerPolicy: 'no-referrer',
})

/** The address the visitor used (the Host check has vouched for it), so the examples work from where they are. */
const originOf = (req: Request): string => `${req.protocol}://${req.get('host') ?? ''}`

/**
 * `GET /`: someone who opens the base URL in a browser gets a start page
 * (docs/simulator.md, "The start page"); an API client (any Accept that does
 * not prefer HTML) gets the JSON 404 every unknown route gives.
 */
export function startPage(ctx: ServiceContext, version: string): RequestHandler {
  return (req, res, next) => {
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') {
      next(apiError('not_found', `No route ${req.method} ${req.path}. The API is under /v1 and described at /openapi.json.`))
      return
    }
    pageHeaders(req, res, () => {
      const content = ctx.templates.render('start/start.html', { version, baseUrl: originOf(req) })
      res
        .type('html')
        .send(ctx.templates.render('dashboard/bare.html', { title: 'Bula simulator', brand: 'Bula', assets: STYLESHEETS, content: safe(content) }))
    })
  }
}

/** Browsers ask for a favicon on every visit: an empty answer, cached for a day, rather than a 404 counted as an error. */
export const favicon: RequestHandler = (_req, res) => {
  res.setHeader('Cache-Control', 'public, max-age=86400')
  res.status(204).end()
}
