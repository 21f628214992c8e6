import { Router } from 'express'
import {
  emptyBodySchema,
  importMerchantStateResponseSchema,
  merchantStateSchema,
  resetMerchantStateResponseSchema,
  stateFileSchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { exportMerchantState, importMerchantState, resetMerchantState } from '../../services/merchant-state.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'

/**
 * `/_sim/state`: the calling merchant's own objects of the key's mode as a
 * state file, and its reset and import (docs/security.md, "State files").
 * The whole simulator's state is a process-level matter: `serve`/`exec`
 * `--import` and `--export-on-exit`.
 */
export function stateRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx))
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'Export the calling merchant\'s own objects of the key\'s mode as a state file',
      auth: 'secret',
      query: emptyBodySchema,
      response: { body: merchantStateSchema },
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: exportMerchantState(ctx, callerOf(res)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/reset',
      summary: 'Reset the key\'s mode of the calling merchant to just signed up, keeping its keys, settings, clock and other mode',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: resetMerchantStateResponseSchema },
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: resetMerchantState(ctx, callerOf(res)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/import',
      summary: 'Replace the calling merchant\'s objects of the key\'s mode with those of a state file it exported',
      auth: 'secret',
      body: stateFileSchema,
      response: { body: importMerchantStateResponseSchema },
      errors: ['live_key_required'],
    },
    handle(ctx, (req, res) => ({ body: importMerchantState(ctx, callerOf(res), req.body) })),
  )
  return router
}
