import { Router } from 'express'
import { failNextPayoutRequestSchema, failNextPayoutResponseSchema, payoutResponseSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { requireLiveKey } from '../../../domain/merchant.js'
import { failNextPayout, requestPayout } from '../../../services/payouts.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/payouts`: the dashboard's "pay out now" and the live payout fault. */
export function simPayoutsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  // A test key is refused a live payout fault before its body is read (docs/security.md), as verification is.
  const liveKeyRoute = apiRoutes(router, ctx, { guard: (caller) => requireLiveKey(caller.merchant, caller.mode, 'A live payout fault') })
  route(
    {
      method: 'post',
      path: '/payouts/request',
      summary: 'Pay out the key\'s mode\'s balance now (manual schedule)',
      description: 'For a merchant on the manual payout schedule: pays the whole balance of the key\'s mode to the payout destination now. A zero balance is 409 `no_balance`.',
      auth: 'secret',
      response: { status: 201, body: payoutResponseSchema },
      errors: ['payout_schedule_not_manual', 'no_balance'],
    },
    ({ caller }) => ({ status: 201, body: { payout: requestPayout(ctx, caller) } }),
  )
  liveKeyRoute(
    {
      method: 'post',
      path: '/payouts/fail-next',
      summary: 'Make the next live transfer fail with a reason',
      description: 'The next Payout of the key\'s mode fails with this reason, and its amount returns to the balance, as a bank\'s refusal would.',
      auth: 'secret',
      body: failNextPayoutRequestSchema,
      response: { body: failNextPayoutResponseSchema },
      errors: ['live_key_required'],
    },
    ({ caller, body }) => ({ body: failNextPayout(ctx, caller, body.reason) }),
  )
  return router
}
