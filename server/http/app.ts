import express, { type Express } from 'express'
import type { ServiceContext } from '../context.js'
import { dashboardLoginRouter, dashboardRouter } from './dashboard/router.js'
import { DashboardSessions } from './dashboard/sessions.js'
import { crossOriginCalls } from './cross-origin.js'
import { errorHandler, notFoundHandler, refuseTrailingSlash, refuseUntakenOptions } from './errors.js'
import { hostCheck } from './host-check.js'
import { openApiRouter } from './openapi.js'
import { requestLogging } from './request-logging.js'
import { series } from './series.js'
import { checkoutPagesRouter } from './pages/checkout.js'
import { invoicePagesRouter } from './pages/invoice.js'
import { favicon, startPage } from './pages/start.js'
import { apiKeysRouter } from './routes/api-keys.js'
import { checkoutSessionsRouter } from './routes/checkout-sessions.js'
import { invoicesRouter } from './routes/invoices.js'
import { merchantsRouter } from './routes/merchants.js'
import { payoutsRouter } from './routes/payouts.js'
import { simRouter } from './routes/sim/index.js'
import { stateRouter } from './routes/state.js'
import { webhookEndpointsRouter } from './routes/webhook-endpoints.js'

export interface AppOptions {
  ctx: ServiceContext
  version: string
  /** Where log lines go (stderr in `bula serve`). */
  log: (line: string) => void
  /** One line per request: method, path, status, latency, request id. */
  logRequests: boolean
  /** The address or name the server listens on (`--host`); a name there is a Host the server answers to. */
  listenHost?: string
}

/** The whole HTTP surface. Never listens: start.ts and tests do. */
export function createApp({ ctx, version, log, logRequests, listenHost }: AppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // Mount paths too (`/V1/...` is no route); set before the first app.use, which creates the app's router.
  app.enable('case sensitive routing')
  // One layer for what every request goes through (series.ts). The Host check comes before every route and body
  // parser: nothing answers a name that DNS rebinding could have pointed here.
  app.use(
    series(
      requestLogging(ctx, { log, logRequests }),
      hostCheck(listenHost === undefined ? ctx.allowedHosts : [...ctx.allowedHosts, listenHost.toLowerCase()]),
      crossOriginCalls(app),
      refuseTrailingSlash,
    ),
  )
  const dashboardSessions = new DashboardSessions(() => ctx.clock.wallNow())
  // Each router that holds routes ends with refuseUntakenOptions (simRouter's own do); the hosted pages end in catch-alls.
  app.use('/_sim/state', refuseUntakenOptions(stateRouter(ctx)))
  app.use('/_sim/dashboard', refuseUntakenOptions(dashboardLoginRouter(ctx, dashboardSessions)))
  app.use('/_sim', simRouter(ctx, version))
  app.use('/v1/merchants', refuseUntakenOptions(merchantsRouter(ctx)))
  app.use('/v1/checkout-sessions', refuseUntakenOptions(checkoutSessionsRouter(ctx)))
  app.use('/v1/invoices', refuseUntakenOptions(invoicesRouter(ctx)))
  app.use('/v1/payouts', refuseUntakenOptions(payoutsRouter(ctx)))
  app.use(['/api-keys', '/v1/api-keys'], refuseUntakenOptions(apiKeysRouter(ctx)))
  app.use(['/webhook-endpoints', '/v1/webhook-endpoints'], refuseUntakenOptions(webhookEndpointsRouter(ctx)))
  app.use('/pay', checkoutPagesRouter(ctx))
  app.use('/i', invoicePagesRouter(ctx))
  app.use('/dashboard', refuseUntakenOptions(dashboardRouter(ctx, dashboardSessions)))
  app.get('/', startPage(ctx, version))
  app.get('/favicon.ico', favicon)
  app.use(refuseUntakenOptions(openApiRouter(app, ctx, version)))
  app.use(notFoundHandler)
  app.use(errorHandler(log))
  return app
}
