import { Router } from 'express'
import { emptyBodySchema, merchantMeSchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { describeMe } from '../../services/merchants.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'

export function merchantsRouter(ctx: ServiceContext): Router {
  const router = Router()
  declareRoute(
    router,
    {
      method: 'get',
      path: '/me',
      summary: 'The calling merchant: tier, mode, balance of the key\'s mode and payout schedule',
      auth: 'secret',
      query: emptyBodySchema,
      response: { body: merchantMeSchema },
    },
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: describeMe(callerOf(res)) }
    }),
  )
  return router
}
