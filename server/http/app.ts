import express, { type Express } from 'express'
import type { ServiceContext } from '../context.js'
import { newId } from '../ids.js'
import { errorHandler, notFoundHandler } from './errors.js'
import { apiKeysRouter } from './routes/api-keys.js'
import { merchantsRouter } from './routes/merchants.js'
import { simRouter } from './routes/sim.js'

export interface AppOptions {
  ctx: ServiceContext
  version: string
  /** Where log lines go (stderr in `bula serve`). */
  log: (line: string) => void
  /** One line per request: method, path, status, latency, request id. */
  logRequests: boolean
}

/** The whole HTTP surface. Never listens: start.ts and tests do. */
export function createApp({ ctx, version, log, logRequests }: AppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use((req, res, next) => {
    const requestId = newId('req')
    res.setHeader('X-Request-Id', requestId)
    if (logRequests) {
      const started = process.hrtime.bigint()
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6
        log(`${req.method} ${req.originalUrl} ${res.statusCode} ${ms.toFixed(1)}ms ${requestId}`)
      })
    }
    next()
  })
  app.use(express.json({ limit: '1mb' }))
  app.use('/_sim', simRouter(ctx, version))
  app.use('/v1/merchants', merchantsRouter(ctx))
  app.use(['/api-keys', '/v1/api-keys'], apiKeysRouter(ctx))
  app.use(notFoundHandler)
  app.use(errorHandler(log))
  return app
}
