import { Router } from 'express'
import { ApiError } from '../../../src/errors.js'
import { emptyBodySchema, listPayoutsQuerySchema, payoutListSchema, payoutSchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { getPayout, listPayouts } from '../../services/payouts.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'

/** Read-only: Payouts come from settlement runs or the dashboard, never from the API (spec). */
export function payoutsRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'List Payouts, oldest first',
      auth: 'secret',
      query: listPayoutsQuerySchema,
      response: { body: payoutListSchema },
    },
    handle(ctx, (req, res) => ({ body: listPayouts(ctx, callerOf(res), parseWith(listPayoutsQuerySchema, req.query, 'query')) })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/:id', summary: 'Get a Payout', auth: 'secret', query: emptyBodySchema, response: { body: payoutSchema } },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: getPayout(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  for (const path of ['/', '/:id']) {
    declareRoute(
      router,
      {
        method: 'all',
        path,
        summary: 'Not allowed: Payouts cannot be created or changed through the API',
        auth: 'secret',
        errors: ['method_not_allowed'],
      },
      (req, _res, next) => {
        next(
          new ApiError(
            405,
            'method_not_allowed',
            `${req.method} is not allowed here: Payouts cannot be created or changed through the API; they come from the payout schedule or a dashboard request.`,
            undefined,
            undefined,
            { Allow: 'GET' },
          ),
        )
      },
    )
  }
  return router
}
