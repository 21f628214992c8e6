import { Router } from 'express'
import { merchantMeSchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { describeMe } from '../../services/merchants.js'
import { apiRouter, apiRoutes } from '../api-route.js'

export function merchantsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  apiRoutes(router, ctx)(
    {
      method: 'get',
      path: '/me',
      summary: 'The calling merchant: tier, mode, balance of the key\'s mode and payout schedule',
      description: 'Who the key belongs to; `balance` is in cents of the key\'s mode.',
      auth: 'secret',
      response: { body: merchantMeSchema },
    },
    ({ caller }) => ({ body: describeMe(caller) }),
  )
  return router
}
