import { Router } from 'express'
import {
  advanceClockRequestSchema,
  emptyBodySchema,
  failNextPayoutRequestSchema,
  rejectVerificationRequestSchema,
  requestLogQuerySchema,
  signupRequestSchema,
  submitVerificationRequestSchema,
  listEventsQuerySchema,
  payInvoiceRequestSchema,
  paySessionRequestSchema,
  resendEventRequestSchema,
  updateInvoiceRequestSchema,
  updateRatesRequestSchema,
  updateSettingsRequestSchema,
  webhookFaultsRequestSchema,
} from '../../../src/schemas/index.js'
import { presentDelivery } from '../../domain/webhook-endpoint.js'
import { getEvent, listEvents, resendEvent } from '../../events/event-log.js'
import { paySession, sessionOfCaller } from '../../services/checkout-sessions.js'
import { emailInvoice } from '../../services/invoice-email.js'
import { payInvoice, requireBusiness, updateDraft } from '../../services/invoices.js'
import { listEmails } from '../../services/outbox.js'
import { failNextPayout, requestPayout } from '../../services/payouts.js'
import { getRates, updateRates } from '../../services/rates.js'
import { getFaults, setFaults } from '../../services/webhook-faults.js'
import type { ServiceContext } from '../../context.js'
import { signup } from '../../services/merchants.js'
import { presentSettings, updateSettings } from '../../services/settings.js'
import { approve, getVerification, reject, submit } from '../../services/verification.js'
import { authenticate, callerOf } from '../auth.js'
import { handle } from '../handle.js'
import { parseWith } from '../validate.js'
import { eventStream, requestLogStream } from './event-stream.js'

/**
 * The simulator-only surface (contract §2, §5, §7): signup, the merchant's
 * clock and the dashboard stand-in. Everything but health and signup needs
 * the merchant's secret key.
 */
export function simRouter(ctx: ServiceContext, version: string): Router {
  const router = Router()
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok', version })
  })
  router.post(
    '/merchants',
    handle(ctx, (req) => ({ status: 201, body: signup(ctx, parseWith(signupRequestSchema, req.body)) })),
  )

  // Per route rather than router-wide, so an unknown /_sim path is a 404 even without a key.
  const auth = authenticate(ctx)
  router.get(
    '/clock',
    auth,
    handle(ctx, (_req, res) => {
      const { id } = callerOf(res).merchant
      return { body: { now: ctx.clock.now(id), offsetMs: ctx.clock.offset(id) } }
    }),
  )
  router.post(
    '/clock/advance',
    auth,
    handle(ctx, (req, res) => ctx.clock.advance(callerOf(res).merchant.id, parseWith(advanceClockRequestSchema, req.body)).then((body) => ({ body }))),
  )
  router.get(
    '/settings',
    auth,
    handle(ctx, (_req, res) => {
      const caller = callerOf(res)
      return { body: presentSettings(ctx.store.get('merchants', caller.merchant.id) ?? caller.merchant, caller.mode) }
    }),
  )
  router.patch(
    '/settings',
    auth,
    handle(ctx, (req, res) => ({ body: updateSettings(ctx, callerOf(res), parseWith(updateSettingsRequestSchema, req.body)) })),
  )
  router.get(
    '/verification',
    auth,
    handle(ctx, (_req, res) => ({ body: { verification: getVerification(ctx, callerOf(res)) } })),
  )
  router.post(
    '/verification',
    auth,
    handle(ctx, (req, res) => ({
      body: { verification: submit(ctx, callerOf(res), parseWith(submitVerificationRequestSchema, req.body)) },
    })),
  )
  router.post(
    '/verification/approve',
    auth,
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: approve(ctx, callerOf(res)) }
    }),
  )
  router.post(
    '/verification/reject',
    auth,
    handle(ctx, (req, res) => ({
      body: { verification: reject(ctx, callerOf(res), parseWith(rejectVerificationRequestSchema, req.body).reason) },
    })),
  )
  router.get(
    '/rates',
    auth,
    handle(ctx, (_req, res) => ({ body: getRates(ctx, callerOf(res)) })),
  )
  router.put(
    '/rates',
    auth,
    handle(ctx, (req, res) => ({ body: updateRates(ctx, callerOf(res), parseWith(updateRatesRequestSchema, req.body)) })),
  )
  router.post(
    '/checkout-sessions/:id/pay',
    auth,
    handle(ctx, (req, res) => {
      const session = sessionOfCaller(ctx, callerOf(res), String(req.params.id))
      return { body: paySession(ctx, session.id, parseWith(paySessionRequestSchema, req.body)) }
    }),
  )
  router.get('/events/stream', auth, eventStream(ctx))
  router.get('/logs/stream', auth, requestLogStream(ctx))
  router.get(
    '/logs',
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      return { body: { data: ctx.requestLog.list(caller.merchant.id, caller.mode, parseWith(requestLogQuerySchema, req.query, 'query')) } }
    }),
  )
  router.get(
    '/events/:id',
    auth,
    handle(ctx, (req, res) => ({ body: getEvent(ctx, callerOf(res), String(req.params.id)) })),
  )
  router.post(
    '/events/:id/resend',
    auth,
    handle(ctx, (req, res) => {
      const { endpointId } = parseWith(resendEventRequestSchema, req.body)
      return { body: { deliveries: resendEvent(ctx, callerOf(res), String(req.params.id), endpointId).map(presentDelivery) } }
    }),
  )
  router.get(
    '/events',
    auth,
    handle(ctx, (req, res) => ({ body: listEvents(ctx, callerOf(res), parseWith(listEventsQuerySchema, req.query, 'query')) })),
  )
  router.patch(
    '/invoices/:id',
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      return { body: updateDraft(ctx, caller, String(req.params.id), parseWith(updateInvoiceRequestSchema, req.body)) }
    }),
  )
  router.post(
    '/invoices/:id/pay',
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      return { body: payInvoice(ctx, caller, String(req.params.id), parseWith(payInvoiceRequestSchema, req.body)) }
    }),
  )
  router.post(
    '/invoices/:id/email',
    auth,
    handle(ctx, async (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      parseWith(emptyBodySchema, req.body)
      return { body: { email: await emailInvoice(ctx, caller, String(req.params.id)) } }
    }),
  )
  router.post(
    '/payouts/request',
    auth,
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { status: 201, body: { payout: requestPayout(ctx, callerOf(res)) } }
    }),
  )
  router.post(
    '/payouts/fail-next',
    auth,
    handle(ctx, (req, res) => ({ body: failNextPayout(ctx, callerOf(res), parseWith(failNextPayoutRequestSchema, req.body).reason) })),
  )
  router.get(
    '/webhook-faults',
    auth,
    handle(ctx, (_req, res) => ({ body: { faults: getFaults(ctx, callerOf(res)) } })),
  )
  router.put(
    '/webhook-faults',
    auth,
    handle(ctx, (req, res) => ({ body: { faults: setFaults(ctx, callerOf(res), parseWith(webhookFaultsRequestSchema, req.body)) } })),
  )
  router.delete(
    '/webhook-faults',
    auth,
    handle(ctx, (_req, res) => ({ body: { faults: setFaults(ctx, callerOf(res), null) } })),
  )
  router.get(
    '/emails',
    auth,
    handle(ctx, (_req, res) => {
      const caller = callerOf(res)
      return { body: { data: listEmails(ctx, caller.merchant.id, caller.mode) } }
    }),
  )
  return router
}
