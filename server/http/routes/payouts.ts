import { apiError } from '../../domain/error-catalog.js'
import { Router } from 'express'
import { listPayoutsQuerySchema, payoutListSchema, payoutSchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { getPayout, listPayouts } from '../../services/payouts.js'
import { apiRouter, apiRoutes } from '../api-route.js'
import { authenticate } from '../auth.js'
import { declareRoute } from '../openapi-routes.js'

/** Read-only: Payouts come from settlement runs or the dashboard, never from the API (spec). */
export function payoutsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'get',
      path: '/',
      summary: 'List Payouts, oldest first',
      description: 'Payouts of the key\'s mode, oldest first, paged with `limit` (1–100, default 10) and `starting_after` (a Payout id); `hasMore` says whether another page follows.',
      auth: 'secret',
      query: listPayoutsQuerySchema,
      response: { body: payoutListSchema },
    },
    ({ caller, query }) => ({ body: listPayouts(ctx, caller, query) }),
  )
  route({ method: 'get', path: '/:id', summary: 'Get a Payout', description: 'One Payout of the calling merchant and the key\'s mode; any other id is 404.', auth: 'secret', response: { body: payoutSchema } }, ({ caller, params }) => ({
    body: getPayout(ctx, caller, params.id!),
  }))
  // Any other method: the key is checked first (401 before 405), as on every route.
  const authenticated = authenticate(ctx)
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
      authenticated,
      (req, _res, next) => {
        next(
          apiError('method_not_allowed', `${req.method} is not allowed here: Payouts cannot be created or changed through the API; they come from the payout schedule or a dashboard request.`, { headers: { Allow: 'GET' } }),
        )
      },
    )
  }
  return router
}
