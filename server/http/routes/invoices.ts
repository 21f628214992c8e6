import { Router } from 'express'
import { createInvoiceRequestSchema, invoiceListSchema, invoiceSchema, listInvoicesQuerySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import {
  createInvoice,
  getInvoice,
  invoicePdf,
  listInvoices,
  replayCreateInvoice,
  replayInvoiceChange,
  requireBusiness,
  sendInvoice,
  voidInvoice,
} from '../../services/invoices.js'
import { apiRouter, apiRoutes } from '../api-route.js'
import { idempotentReply } from '../handle.js'

export function invoicesRouter(ctx: ServiceContext): Router {
  const router = apiRouter()
  // 403 business_only on every Invoice route (spec), once the key is known to be a secret one and before anything else.
  const route = apiRoutes(router, ctx, { guard: requireBusiness })
  route(
    {
      method: 'post',
      path: '/',
      summary: 'Create a draft Invoice',
      description: 'A repeated Idempotency-Key answers the original draft, whatever the body.',
      auth: 'secret',
      idempotencyKey: true,
      body: createInvoiceRequestSchema,
      response: { status: 201, body: invoiceSchema },
      errors: ['business_only'],
    },
    ({ caller, body, key }) => idempotentReply(createInvoice(ctx, caller, body, key)),
    ({ caller, key }) => replayCreateInvoice(ctx, caller, key),
  )
  route(
    {
      method: 'get',
      path: '/',
      summary: 'List Invoices, newest first',
      description: 'Paged with `limit` and `starting_after` (an Invoice id).',
      auth: 'secret',
      query: listInvoicesQuerySchema,
      response: { body: invoiceListSchema },
      errors: ['business_only'],
    },
    ({ caller, query }) => ({ body: listInvoices(ctx, caller, query) }),
  )
  route(
    { method: 'get', path: '/:id', summary: 'Get an Invoice by its integer id', description: 'Ids are integers from one sequence for every merchant, never reused; another merchant\'s or the other mode\'s id is 404, as is any id that is not one. Overdue is computed on the merchant\'s clock.', auth: 'secret', response: { body: invoiceSchema }, errors: ['business_only'] },
    ({ caller, params }) => ({ body: getInvoice(ctx, caller, params.id!) }),
  )
  route(
    {
      method: 'post',
      path: '/:id/send',
      summary: 'Send a draft: it gets its number',
      description: 'Issues the next number (prefix and counter; a number is never issued twice), and opens its hosted page (`url`, `pdfUrl`). No event is sent: the spec has no Invoice events, and a paid Invoice shows in `checkout_session.succeeded` (its `invoiceNumber`).',
      auth: 'secret',
      idempotencyKey: true,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state'],
    },
    ({ caller, params, key }) => idempotentReply(sendInvoice(ctx, caller, params.id!, key)),
    ({ caller, params, key }) => replayInvoiceChange(ctx, caller, params.id!, 'send', key),
  )
  route(
    {
      method: 'post',
      path: '/:id/void',
      summary: 'Void a sent Invoice',
      description: 'A void Invoice can no longer be paid; its hosted page says so. A paid Invoice is 409.',
      auth: 'secret',
      idempotencyKey: true,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state', 'payment_in_progress'],
    },
    ({ caller, params, key }) => idempotentReply(voidInvoice(ctx, caller, params.id!, key)),
    ({ caller, params, key }) => replayInvoiceChange(ctx, caller, params.id!, 'void', key),
  )
  // The same bytes the customer downloads from the hosted page; the spec serves it as octet-stream.
  route(
    {
      method: 'get',
      path: '/:id/pdf',
      summary: 'Download a sent Invoice as a PDF',
      description: 'The PDF the customer gets, with the merchant\'s details, items, tax line and total. A draft has no PDF (409).',
      auth: 'secret',
      response: { contentType: 'application/octet-stream', description: 'The PDF, as an attachment named after the Invoice number.' },
      errors: ['business_only', 'invalid_state'],
    },
    async ({ caller, params, res }) => {
      const { invoice, pdf } = await invoicePdf(ctx, caller, params.id!)
      res.setHeader('content-type', 'application/octet-stream')
      res.setHeader('content-disposition', `attachment; filename="${invoice.number}.pdf"`)
      res.send(pdf)
      return undefined
    },
  )
  return router
}
