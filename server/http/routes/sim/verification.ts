import { Router } from 'express'
import {
  approveVerificationResponseSchema,
  rejectVerificationRequestSchema,
  submitVerificationRequestSchema,
  verificationResponseSchema,
} from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { approveVerification, getVerification, rejectVerification, submitVerification } from '../../../services/verification.js'
import { apiRoutes } from '../../api-route.js'

/** `/_sim/verification`: submit, and play the reviewer (docs/simulator.md, "Verification"). */
export function verificationRouter(ctx: ServiceContext): Router {
  const router = Router()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/verification', summary: 'Verification status', auth: 'secret', response: { body: verificationResponseSchema } }, ({ caller }) => ({
    body: { verification: getVerification(ctx, caller) },
  }))
  route(
    {
      method: 'post',
      path: '/verification',
      summary: 'Submit verification for live mode',
      auth: 'secret',
      body: submitVerificationRequestSchema,
      response: { body: verificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    ({ caller, body }) => ({ body: { verification: submitVerification(ctx, caller, body) } }),
  )
  route(
    {
      method: 'post',
      path: '/verification/approve',
      summary: 'Approve pending verification: live mode and the first live key pair',
      auth: 'secret',
      response: { body: approveVerificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    ({ caller }) => ({ body: approveVerification(ctx, caller) }),
  )
  route(
    {
      method: 'post',
      path: '/verification/reject',
      summary: 'Reject pending verification with a reason',
      auth: 'secret',
      body: rejectVerificationRequestSchema,
      response: { body: verificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    ({ caller, body }) => ({ body: { verification: rejectVerification(ctx, caller, body.reason) } }),
  )
  return router
}
