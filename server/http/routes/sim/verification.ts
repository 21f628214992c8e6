import { Router } from 'express'
import {
  approveVerificationResponseSchema,
  rejectVerificationRequestSchema,
  submitVerificationRequestSchema,
  verificationResponseSchema,
} from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { requireLiveKey } from '../../../domain/merchant.js'
import { approveVerification, getVerification, rejectVerification, submitVerification } from '../../../services/verification.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/verification`: submit, and play the reviewer (docs/simulator.md, "Verification"). */
export function verificationRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  // Submitting and reviewing need a live key once live keys exist, and a test key is told so before its body is read:
  // 403 live_key_required, not what the body lacks (the services check again, for the dashboard's forms).
  const liveKeyRoute = apiRoutes(router, ctx, { guard: (caller) => requireLiveKey(caller.merchant, caller.mode, 'Verification') })
  route({ method: 'get', path: '/verification', summary: 'Verification status', description: 'Where the merchant\'s verification for live mode stands; the TIN is masked and documents are listed by type, size and SHA-256, never returned.', auth: 'secret', response: { body: verificationResponseSchema } }, ({ caller }) => ({
    body: { verification: getVerification(ctx, caller) },
  }))
  liveKeyRoute(
    {
      method: 'post',
      path: '/verification',
      summary: 'Submit verification for live mode',
      description: 'A 9-digit TIN, a TIN card photo and a business registration (business tier) or a personal ID (individual tier), as data URLs. Verification becomes `pending`.',
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
      description: 'Stands in for the review: approves pending verification, unlocks live mode and answers the first live key pair, shown this once. Approving again is 409 and mints nothing.',
      auth: 'secret',
      response: { body: approveVerificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    ({ caller }) => ({ body: approveVerification(ctx, caller) }),
  )
  liveKeyRoute(
    {
      method: 'post',
      path: '/verification/reject',
      summary: 'Reject pending verification with a reason',
      description: 'Stands in for the review: rejects pending verification; the merchant may submit again.',
      auth: 'secret',
      body: rejectVerificationRequestSchema,
      response: { body: verificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    ({ caller, body }) => ({ body: { verification: rejectVerification(ctx, caller, body.reason) } }),
  )
  return router
}
