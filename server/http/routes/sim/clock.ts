import { Router } from 'express'
import { advanceClockRequestSchema, advanceClockResponseSchema, clockSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/clock`: the merchant's own clock (docs/simulator.md, "The clock"). */
export function clockRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/clock', summary: 'The merchant\'s clock', description: 'The merchant\'s simulated now (Unix ms) and its offset from the wall clock. Expiry, settlement and every timestamp use it.', auth: 'secret', response: { body: clockSchema } }, ({ caller }) => ({
    body: { now: ctx.clock.now(caller.merchant.id), offsetMs: ctx.clock.offset(caller.merchant.id) },
  }))
  route(
    {
      method: 'post',
      path: '/clock/advance',
      summary: 'Advance the merchant\'s clock, running what falls due on the way',
      description: 'Moves the clock forward by `ms` or to `to` (up to 400 days), running every job that falls due in order: session expiry, settlement runs, payout completion, webhook retries. Answers with what ran; the clock lands exactly where asked.',
      auth: 'secret',
      body: advanceClockRequestSchema,
      response: { body: advanceClockResponseSchema },
    },
    async ({ caller, body }) => ({ body: await ctx.clock.advance(caller.merchant.id, body, caller.mode) }),
  )
  return router
}
