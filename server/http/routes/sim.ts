import { Router } from 'express'
import {
  advanceClockRequestSchema,
  advanceClockResponseSchema,
  approveVerificationResponseSchema,
  clockSchema,
  emailListSchema,
  emailResponseSchema,
  emptyBodySchema,
  eventListSchema,
  eventWithDeliveriesSchema,
  failNextPayoutRequestSchema,
  failNextPayoutResponseSchema,
  healthSchema,
  invoiceSchema,
  listEventsQuerySchema,
  payInvoiceRequestSchema,
  payResponseSchema,
  paySessionRequestSchema,
  payoutResponseSchema,
  ratesSchema,
  rejectVerificationRequestSchema,
  requestLogQuerySchema,
  requestLogSchema,
  resendEventRequestSchema,
  resendEventResponseSchema,
  settingsSchema,
  signupRequestSchema,
  signupResponseSchema,
  submitVerificationRequestSchema,
  updateInvoiceRequestSchema,
  updateRatesRequestSchema,
  updateSettingsRequestSchema,
  verificationResponseSchema,
  webhookFaultsRequestSchema,
  webhookFaultsResponseSchema,
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
import { declareRoute } from '../openapi-routes.js'
import { parseWith } from '../validate.js'
import { eventStream, requestLogStream } from './event-stream.js'

/**
 * The simulator-only surface (contract §2, §5, §7): signup, the merchant's
 * clock and the dashboard stand-in. Everything but health and signup needs
 * the merchant's secret key.
 */
export function simRouter(ctx: ServiceContext, version: string): Router {
  const router = Router()
  declareRoute(
    router,
    { method: 'get', path: '/health', summary: 'Whether the simulator is up, and its version', auth: 'none', response: { body: healthSchema } },
    (_req, res) => {
      res.json({ status: 'ok', version })
    },
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/merchants',
      summary: 'Sign up a merchant: its test key pair',
      auth: 'none',
      body: signupRequestSchema,
      response: { status: 201, body: signupResponseSchema },
    },
    handle(ctx, (req) => ({ status: 201, body: signup(ctx, parseWith(signupRequestSchema, req.body)) })),
  )

  // Per route rather than router-wide, so an unknown /_sim path is a 404 even without a key.
  const auth = authenticate(ctx)
  declareRoute(
    router,
    { method: 'get', path: '/clock', summary: 'The merchant\'s clock', auth: 'secret', response: { body: clockSchema } },
    auth,
    handle(ctx, (_req, res) => {
      const { id } = callerOf(res).merchant
      return { body: { now: ctx.clock.now(id), offsetMs: ctx.clock.offset(id) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/clock/advance',
      summary: 'Advance the merchant\'s clock, running what falls due on the way',
      auth: 'secret',
      body: advanceClockRequestSchema,
      response: { body: advanceClockResponseSchema },
    },
    auth,
    handle(ctx, (req, res) => ctx.clock.advance(callerOf(res).merchant.id, parseWith(advanceClockRequestSchema, req.body)).then((body) => ({ body }))),
  )
  declareRoute(
    router,
    { method: 'get', path: '/settings', summary: 'Dashboard settings', auth: 'secret', response: { body: settingsSchema } },
    auth,
    handle(ctx, (_req, res) => {
      const caller = callerOf(res)
      return { body: presentSettings(ctx.store.get('merchants', caller.merchant.id) ?? caller.merchant, caller.mode) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'patch',
      path: '/settings',
      summary: 'Change dashboard settings',
      auth: 'secret',
      body: updateSettingsRequestSchema,
      response: { body: settingsSchema },
      errors: ['verification_required', 'live_key_required'],
    },
    auth,
    handle(ctx, (req, res) => ({ body: updateSettings(ctx, callerOf(res), parseWith(updateSettingsRequestSchema, req.body)) })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/verification', summary: 'Verification status', auth: 'secret', response: { body: verificationResponseSchema } },
    auth,
    handle(ctx, (_req, res) => ({ body: { verification: getVerification(ctx, callerOf(res)) } })),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/verification',
      summary: 'Submit verification for live mode',
      auth: 'secret',
      body: submitVerificationRequestSchema,
      response: { body: verificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    auth,
    handle(ctx, (req, res) => ({
      body: { verification: submit(ctx, callerOf(res), parseWith(submitVerificationRequestSchema, req.body)) },
    })),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/verification/approve',
      summary: 'Approve pending verification: live mode and the first live key pair',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: approveVerificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    auth,
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { body: approve(ctx, callerOf(res)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/verification/reject',
      summary: 'Reject pending verification with a reason',
      auth: 'secret',
      body: rejectVerificationRequestSchema,
      response: { body: verificationResponseSchema },
      errors: ['invalid_state', 'live_key_required'],
    },
    auth,
    handle(ctx, (req, res) => ({
      body: { verification: reject(ctx, callerOf(res), parseWith(rejectVerificationRequestSchema, req.body).reason) },
    })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/rates', summary: 'The merchant\'s quote rates', auth: 'secret', response: { body: ratesSchema } },
    auth,
    handle(ctx, (_req, res) => ({ body: getRates(ctx, callerOf(res)) })),
  )
  declareRoute(
    router,
    { method: 'put', path: '/rates', summary: 'Set quote rates', auth: 'secret', body: updateRatesRequestSchema, response: { body: ratesSchema } },
    auth,
    handle(ctx, (req, res) => ({ body: updateRates(ctx, callerOf(res), parseWith(updateRatesRequestSchema, req.body)) })),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/checkout-sessions/:id/pay',
      summary: 'Pay a Checkout Session as the customer would',
      auth: 'secret',
      body: paySessionRequestSchema,
      response: { body: payResponseSchema },
      errors: ['invalid_state', 'live_mode_unavailable'],
    },
    auth,
    handle(ctx, (req, res) => {
      const session = sessionOfCaller(ctx, callerOf(res), String(req.params.id))
      return { body: paySession(ctx, session.id, parseWith(paySessionRequestSchema, req.body)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/events/stream',
      summary: 'The merchant\'s events of the key\'s mode as Server-Sent Events',
      description: 'Reconnecting with `Last-Event-ID` replays the events missed since that id.',
      auth: 'secret',
      response: {
        contentType: 'text/event-stream',
        description: 'One message per event: `id` the event id, `event` its type, `data` its payload (Event).',
      },
    },
    auth,
    eventStream(ctx),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/logs/stream',
      summary: 'The merchant\'s API calls of the key\'s mode as Server-Sent Events',
      auth: 'secret',
      query: requestLogQuerySchema,
      response: { contentType: 'text/event-stream', description: 'One `request` message per finished call; `data` is a RequestLogEntry.' },
    },
    auth,
    requestLogStream(ctx),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/logs',
      summary: 'The request log of the key\'s mode',
      auth: 'secret',
      query: requestLogQuerySchema,
      response: { body: requestLogSchema },
    },
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      return { body: { data: ctx.requestLog.list(caller.merchant.id, caller.mode, parseWith(requestLogQuerySchema, req.query, 'query')) } }
    }),
  )
  declareRoute(
    router,
    { method: 'get', path: '/events/:id', summary: 'An event with its deliveries', auth: 'secret', response: { body: eventWithDeliveriesSchema } },
    auth,
    handle(ctx, (req, res) => ({ body: getEvent(ctx, callerOf(res), String(req.params.id)) })),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/events/:id/resend',
      summary: 'Deliver an event again, to one endpoint or every active one',
      auth: 'secret',
      body: resendEventRequestSchema,
      response: { body: resendEventResponseSchema },
    },
    auth,
    handle(ctx, (req, res) => {
      const { endpointId } = parseWith(resendEventRequestSchema, req.body)
      return { body: { deliveries: resendEvent(ctx, callerOf(res), String(req.params.id), endpointId).map(presentDelivery) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/events',
      summary: 'Events of the key\'s mode, newest first',
      auth: 'secret',
      query: listEventsQuerySchema,
      response: { body: eventListSchema },
    },
    auth,
    handle(ctx, (req, res) => ({ body: listEvents(ctx, callerOf(res), parseWith(listEventsQuerySchema, req.query, 'query')) })),
  )
  declareRoute(
    router,
    {
      method: 'patch',
      path: '/invoices/:id',
      summary: 'Edit a draft Invoice',
      auth: 'secret',
      body: updateInvoiceRequestSchema,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state'],
    },
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      return { body: updateDraft(ctx, caller, String(req.params.id), parseWith(updateInvoiceRequestSchema, req.body)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/invoices/:id/pay',
      summary: 'Pay a sent Invoice as the customer would',
      auth: 'secret',
      body: payInvoiceRequestSchema,
      response: { body: payResponseSchema },
      errors: ['business_only', 'invalid_state', 'live_mode_unavailable'],
    },
    auth,
    handle(ctx, (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      return { body: payInvoice(ctx, caller, String(req.params.id), parseWith(payInvoiceRequestSchema, req.body)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/invoices/:id/email',
      summary: 'E-mail a sent Invoice to its customer (into the outbox)',
      auth: 'secret',
      body: emptyBodySchema,
      response: { body: emailResponseSchema },
      errors: ['business_only'],
    },
    auth,
    handle(ctx, async (req, res) => {
      const caller = callerOf(res)
      requireBusiness(caller)
      parseWith(emptyBodySchema, req.body)
      return { body: { email: await emailInvoice(ctx, caller, String(req.params.id)) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/payouts/request',
      summary: 'Pay out the key\'s mode\'s balance now (manual schedule)',
      auth: 'secret',
      body: emptyBodySchema,
      response: { status: 201, body: payoutResponseSchema },
      errors: ['payout_schedule_not_manual', 'no_balance'],
    },
    auth,
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.body)
      return { status: 201, body: { payout: requestPayout(ctx, callerOf(res)) } }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/payouts/fail-next',
      summary: 'Make the next live transfer fail with a reason',
      auth: 'secret',
      body: failNextPayoutRequestSchema,
      response: { body: failNextPayoutResponseSchema },
      errors: ['live_key_required'],
    },
    auth,
    handle(ctx, (req, res) => ({ body: failNextPayout(ctx, callerOf(res), parseWith(failNextPayoutRequestSchema, req.body).reason) })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/webhook-faults', summary: 'Delivery faults of the key\'s mode', auth: 'secret', response: { body: webhookFaultsResponseSchema } },
    auth,
    handle(ctx, (_req, res) => ({ body: { faults: getFaults(ctx, callerOf(res)) } })),
  )
  declareRoute(
    router,
    {
      method: 'put',
      path: '/webhook-faults',
      summary: 'Set seeded delivery faults for the key\'s mode',
      auth: 'secret',
      body: webhookFaultsRequestSchema,
      response: { body: webhookFaultsResponseSchema },
    },
    auth,
    handle(ctx, (req, res) => ({ body: { faults: setFaults(ctx, callerOf(res), parseWith(webhookFaultsRequestSchema, req.body)) } })),
  )
  declareRoute(
    router,
    { method: 'delete', path: '/webhook-faults', summary: 'Turn delivery faults off', auth: 'secret', response: { body: webhookFaultsResponseSchema } },
    auth,
    handle(ctx, (_req, res) => ({ body: { faults: setFaults(ctx, callerOf(res), null) } })),
  )
  declareRoute(
    router,
    { method: 'get', path: '/emails', summary: 'The outbox of the key\'s mode, newest first', auth: 'secret', response: { body: emailListSchema } },
    auth,
    handle(ctx, (_req, res) => {
      const caller = callerOf(res)
      return { body: { data: listEmails(ctx, caller.merchant.id, caller.mode) } }
    }),
  )
  return router
}
