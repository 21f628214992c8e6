import { Router, type Express } from 'express'
import {
  apiFaultListSchema,
  apiFaultResponseSchema,
  clearedApiFaultsSchema,
  createApiFaultRequestSchema,
  deletedApiFaultSchema,
} from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { apiRouter, apiRoutes } from '../../api-route.js'
import { checkFaultRoute } from '../../faults.js'

/**
 * `/_sim/faults`: API faults for the merchant's own client to survive, per
 * merchant and mode (docs/faults-and-doctor.md). Faults never apply to these
 * routes, so a fault on `*` can always be listed and removed.
 */
export function faultsRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx)
  route(
    {
      method: 'post',
      path: '/faults',
      summary: 'Fault the next requests of the key\'s merchant and mode to a route',
      description: [
        '`route` is `*` or a method and a path of this document (`GET /v1/invoices/{id}`). `action`: `error` answers `status`',
        '(500, 502, 503 or 504; default 503, code `injected_fault`) and changes nothing; `delay` answers after `delayMs` (up to 60,000);',
        '`reset` closes the connection unanswered and changes nothing; `lose_response` does the work, commits it, then closes the',
        'connection unanswered, so a retry with the same Idempotency-Key gets the stored result. In force for the next `times` matching',
        'requests (default 1), each struck with `probability` drawn from a generator seeded with `seed`.',
      ].join(' '),
      auth: 'secret',
      faults: false,
      body: createApiFaultRequestSchema,
      response: { status: 201, body: apiFaultResponseSchema },
    },
    ({ req, caller, body }) => {
      const name = checkFaultRoute(req.app as Express, body.route)
      return { status: 201, body: { fault: ctx.apiFaults.add(caller.merchant.id, caller.mode, name, body, ctx.clock.now(caller.merchant.id)) } }
    },
  )
  route(
    {
      method: 'get',
      path: '/faults',
      summary: 'The API faults in force for the key\'s mode',
      description: 'Oldest first, the order a request checks them in; a fault is gone once it has matched `times` requests.',
      auth: 'secret',
      faults: false,
      response: { body: apiFaultListSchema },
    },
    ({ caller }) => ({ body: { data: ctx.apiFaults.list(caller.merchant.id, caller.mode) } }),
  )
  route(
    {
      method: 'delete',
      path: '/faults/:id',
      summary: 'Remove one API fault',
      description: 'A fault of another merchant or mode is 404.',
      auth: 'secret',
      faults: false,
      response: { body: deletedApiFaultSchema },
    },
    ({ caller, params }) => {
      ctx.apiFaults.remove(caller.merchant.id, caller.mode, params.id!)
      return { body: { id: params.id!, deleted: true } }
    },
  )
  route(
    {
      method: 'delete',
      path: '/faults',
      summary: 'Remove every API fault of the key\'s mode',
      description: 'Requests are answered as normal from now on; the other mode\'s faults stay.',
      auth: 'secret',
      faults: false,
      response: { body: clearedApiFaultsSchema },
    },
    ({ caller }) => ({ body: { deleted: ctx.apiFaults.clear(caller.merchant.id, caller.mode) } }),
  )
  return router
}
