import { Router } from 'express'
import type { ServiceContext } from '../../../context.js'
import { refuseUntakenOptions } from '../../errors.js'
import { clockRouter } from './clock.js'
import { doctorRouter } from './doctor.js'
import { eventsRouter } from './events.js'
import { faultsRouter } from './faults.js'
import { healthRouter } from './health.js'
import { simInvoicesRouter } from './invoices.js'
import { paymentsRouter } from './payments.js'
import { simPayoutsRouter } from './payouts.js'
import { settingsRouter } from './settings.js'
import { verificationRouter } from './verification.js'
import { webhookFaultsRouter } from './webhook-faults.js'

/**
 * The simulator-only surface under `/_sim` (docs/simulator.md): signup and
 * health, the merchant's clock, and the dashboard stand-in, one router per
 * resource. Every route but health and signup takes the merchant's secret
 * key and acts within its mode (docs/security.md).
 */
export function simRouter(ctx: ServiceContext, version: string): Router {
  // Each ends with refuseUntakenOptions: Express's own OPTIONS answer comes from the router that holds the path. An
  // earlier one refusing an OPTIONS meant for a later one gives the same 404, as no /_sim route takes every method.
  const routers = [
    healthRouter(ctx, version),
    clockRouter(ctx),
    settingsRouter(ctx),
    verificationRouter(ctx),
    paymentsRouter(ctx),
    eventsRouter(ctx),
    simInvoicesRouter(ctx),
    simPayoutsRouter(ctx),
    webhookFaultsRouter(ctx),
    faultsRouter(ctx),
    doctorRouter(ctx),
  ]
  return Router().use(routers.map(refuseUntakenOptions))
}
