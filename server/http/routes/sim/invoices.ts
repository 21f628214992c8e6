import { Router } from 'express'
import { emailResponseSchema, invoiceSchema, payInvoiceRequestSchema, payResponseSchema, updateInvoiceRequestSchema } from '../../../../src/schemas/index.js'
import type { ServiceContext } from '../../../context.js'
import { emailInvoice } from '../../../services/invoice-email.js'
import { payInvoice, requireBusiness, updateDraft } from '../../../services/invoices.js'
import { apiRouter, apiRoutes } from '../../api-route.js'

/** `/_sim/invoices/{id}`: draft edits, e-mail and the customer's payment, for business accounts as on `/v1/invoices`. */
export function simInvoicesRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  const route = apiRoutes(router, ctx, { guard: requireBusiness })
  route(
    {
      method: 'patch',
      path: '/invoices/:id',
      summary: 'Edit a draft Invoice',
      description: 'Stands in for the dashboard\'s editor: changes the fields sent on a draft; totals are computed again. A sent or void Invoice is 409.',
      auth: 'secret',
      body: updateInvoiceRequestSchema,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state'],
    },
    ({ caller, params, body }) => ({ body: updateDraft(ctx, caller, params.id!, body) }),
  )
  route(
    {
      method: 'post',
      path: '/invoices/:id/pay',
      summary: 'Pay a sent Invoice as the customer would',
      description: 'Stands in for the Invoice\'s hosted page: makes its Checkout Session and a PaymentIntent with the given outcome. The Invoice is paid when the payment succeeds.',
      auth: 'secret',
      body: payInvoiceRequestSchema,
      response: { body: payResponseSchema },
      errors: ['business_only', 'invalid_state', 'live_mode_unavailable'],
    },
    ({ caller, params, body }) => ({ body: payInvoice(ctx, caller, params.id!, body) }),
  )
  route(
    {
      method: 'post',
      path: '/invoices/:id/email',
      summary: 'E-mail a sent Invoice to its customer (into the outbox)',
      description: 'Puts the e-mail the customer would get, with the PDF attached, into the outbox. The Invoice needs a customer e-mail.',
      auth: 'secret',
      response: { body: emailResponseSchema },
      errors: ['business_only'],
    },
    async ({ caller, params }) => ({ body: { email: await emailInvoice(ctx, caller, params.id!) } }),
  )
  return router
}
