import { Router } from 'express'
import { payResponseSchema, paySessionRequestSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { paySession, sessionOfCaller } from '../../../services/checkout-sessions.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/checkout-sessions/{id}/pay`: the customer stand-in (docs/simulator.md). */
export function paymentsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  apiRoutes(router, ctx)(
    {
      method: 'post',
      path: '/checkout-sessions/:id/pay',
      summary: 'Pay a Checkout Session as the customer would',
      description: 'Stands in for the hosted page: makes a PaymentIntent with the given outcome and provider, moves the session on, and emits the events a real payment would. `processing` leaves the payment to settle later on the merchant\'s clock.',
      auth: 'secret',
      body: paySessionRequestSchema,
      response: { body: payResponseSchema },
      errors: ['invalid_state', 'live_mode_unavailable'],
    },
    ({ caller, params, body }) => ({ body: paySession(ctx, sessionOfCaller(ctx, caller, params.id!).id, body) }),
  )
  return router
}
