import { Router } from 'express'
import { healthSchema, signupRequestSchema, signupResponseSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { signup } from '../../../services/merchants.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/health` and `/_sim/merchants`: the two routes that take no key. */
export function healthRouter(ctx: ServiceContext, version: string): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route({ method: 'get', path: '/health', summary: 'Whether the simulator is up, and its version', description: 'Needs no key; answers 200 as soon as the simulator serves requests.', auth: 'none', response: { body: healthSchema } }, () => ({
    body: { status: 'ok', version },
  }))
  route(
    {
      method: 'post',
      path: '/merchants',
      summary: 'Sign up a merchant: its test key pair',
      description: 'Makes a merchant of the given tier with a test secret and publishable key, shown this once. Live mode needs verification.',
      auth: 'none',
      body: signupRequestSchema,
      response: { status: 201, body: signupResponseSchema },
    },
    ({ body }) => ({ status: 201, body: signup(ctx, body) }),
  )
  return router
}
