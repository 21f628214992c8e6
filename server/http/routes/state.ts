import { Router } from 'express'
import {
  importMerchantStateRequestSchema,
  importMerchantStateResponseSchema,
  merchantStateSchema,
  resetMerchantStateResponseSchema,
} from '../../../src/schemas/index.js'
import { STATE_IMPORT_LIMIT_BYTES } from '../../../src/state/limits.js'
import type { ServiceContext } from '../../context.js'
import { exportMerchantState, importMerchantState, resetMerchantState } from '../../services/merchant-state.js'
import { apiRouter, apiRoutes } from '../api-route.js'

/**
 * `/_sim/state`: the calling merchant's own objects of the key's mode as a
 * state file, and its reset and import (docs/security.md, "State files").
 * The whole simulator's state is a process-level matter: `serve`/`exec`
 * `--import` and `--export-on-exit`.
 */
export function stateRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'get',
      path: '/',
      summary: 'Export the calling merchant\'s own objects of the key\'s mode as a state file',
      description: 'A one-mode state file (no keys, jobs or idempotency records) for `POST /_sim/state/import` or a fixture. It holds webhook secrets and customer e-mails: keep it private.',
      auth: 'secret',
      response: { body: merchantStateSchema },
    },
    ({ caller }) => ({ body: exportMerchantState(ctx, caller) }),
  )
  // Reset and import wait for an advance of the merchant's clock to finish (ClockService.exclusive; the import's in the service).
  route(
    {
      method: 'post',
      path: '/reset',
      summary: 'Reset the key\'s mode of the calling merchant to just signed up, keeping its keys, settings, clock and other mode',
      description: 'Deletes the sessions, payments, invoices, payouts, events, deliveries and e-mails of the key\'s mode, and zeroes its balance.',
      auth: 'secret',
      response: { body: resetMerchantStateResponseSchema },
    },
    async ({ caller }) => ({ body: await ctx.clock.exclusive(caller.merchant.id, () => resetMerchantState(ctx, caller)) }),
  )
  // The envelope is parsed here; importMerchantState checks every document, reference and range (docs/security.md).
  route(
    {
      method: 'post',
      path: '/import',
      summary: 'Replace the calling merchant\'s objects of the key\'s mode with those of a state file it exported',
      description: 'The whole file is checked before anything changes (schemas, references, unique ids and tokens, ranges); a refusal names the field as a path (`invoices[3].pageToken`). Applied all or nothing; jobs are derived again. Takes a body of up to 16 MiB (every other route: 1 MiB) holding at most 500,000 objects and arrays, whose objects make at most 200,000 shapes (runs of key names in order); a merchant\'s own 16 MiB export holds about 90,000 to 160,000 objects and arrays, and makes a few hundred shapes plus one for each metadata key that only one session uses.',
      auth: 'secret',
      body: importMerchantStateRequestSchema,
      // A merchant's own export is over 1 MiB at about 1,800 sessions.
      bodyLimit: STATE_IMPORT_LIMIT_BYTES,
      response: { body: importMerchantStateResponseSchema },
      errors: ['live_key_required'],
    },
    async ({ caller, body }) => ({ body: await importMerchantState(ctx, caller, body) }),
  )
  return router
}
