import { Router } from 'express'
import { emptyBodySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { describeMe } from '../../services/merchants.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { parseWith } from '../validate.js'

export function merchantsRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.get(
    '/me',
    authenticate(ctx),
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: describeMe(callerOf(res)) }
    }),
  )
  return router
}
