import { Router } from 'express'
import { doctorQuerySchema, doctorReportSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { doctorReport } from '../../../services/doctor.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `GET /_sim/doctor`: what the merchant's own traffic of the key's mode says about the integration (docs/faults-and-doctor.md). */
export function doctorRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  apiRoutes(router, ctx)(
    {
      method: 'get',
      path: '/doctor',
      summary: 'Review the integration from the merchant\'s own requests, events and deliveries',
      description: [
        'Each finding names the rule broken, the evidence (request ids, event ids, times on the merchant\'s clock) and the fix:',
        'creates retried with a new Idempotency-Key, a key reused for another request, webhook answers that were not 2xx, late or',
        'missing, endpoints never verified, sessions without an endpoint, polling, 429s and Retry-After, and live readiness.',
        '`sinceMs` looks back that far; without it, everything the simulator still has (the request log keeps 1000 calls).',
      ].join(' '),
      auth: 'secret',
      query: doctorQuerySchema,
      response: { body: doctorReportSchema },
    },
    ({ caller, query }) => ({ body: doctorReport(ctx, caller, query) }),
  )
  return router
}
