import { Router, type RequestHandler } from 'express'
import {
  createInvoiceRequestSchema,
  emptyBodySchema,
  invoiceListSchema,
  invoiceSchema,
  listInvoicesQuerySchema,
} from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { createInvoice, getInvoice, invoicePdf, listInvoices, requireBusiness, sendInvoice, voidInvoice } from '../../services/invoices.js'
import { authenticate, callerOf } from '../auth.js'
import { handle, idempotentReply } from '../handle.js'
import { declareRoute } from '../openapi-routes.js'
import { idempotencyKeyOf, parseWith } from '../validate.js'

/** 403 business_only on every Invoice route, before anything else is looked at (spec). */
const businessOnly: RequestHandler = (_req, res, next) => {
  try {
    requireBusiness(callerOf(res))
    next()
  } catch (error) {
    next(error)
  }
}

export function invoicesRouter(ctx: ServiceContext): Router {
  const router = Router()
  router.use(authenticate(ctx), businessOnly)
  declareRoute(
    router,
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
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      return idempotentReply(createInvoice(ctx, callerOf(res), parseWith(createInvoiceRequestSchema, req.body), key))
    }),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/',
      summary: 'List Invoices, newest first',
      auth: 'secret',
      query: listInvoicesQuerySchema,
      response: { body: invoiceListSchema },
      errors: ['business_only'],
    },
    handle(ctx, (req, res) => ({ body: listInvoices(ctx, callerOf(res), parseWith(listInvoicesQuerySchema, req.query, 'query')) })),
  )
  declareRoute(
    router,
    {
      method: 'get',
      path: '/:id',
      summary: 'Get an Invoice by its integer id',
      auth: 'secret',
      query: emptyBodySchema,
      response: { body: invoiceSchema },
      errors: ['business_only'],
    },
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: getInvoice(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/send',
      summary: 'Send a draft: it gets its number',
      auth: 'secret',
      idempotencyKey: true,
      body: emptyBodySchema,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state'],
    },
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      parseWith(emptyBodySchema, req.body)
      return idempotentReply(sendInvoice(ctx, callerOf(res), String(req.params.id), key))
    }),
  )
  declareRoute(
    router,
    {
      method: 'post',
      path: '/:id/void',
      summary: 'Void a sent Invoice',
      auth: 'secret',
      idempotencyKey: true,
      body: emptyBodySchema,
      response: { body: invoiceSchema },
      errors: ['business_only', 'invalid_state', 'payment_in_progress'],
    },
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      parseWith(emptyBodySchema, req.body)
      return idempotentReply(voidInvoice(ctx, callerOf(res), String(req.params.id), key))
    }),
  )
  // The same bytes the customer downloads from the hosted page; the spec serves it as octet-stream.
  declareRoute(
    router,
    {
      method: 'get',
      path: '/:id/pdf',
      summary: 'Download a sent Invoice as a PDF',
      auth: 'secret',
      response: { contentType: 'application/octet-stream', description: 'The PDF, as an attachment named after the Invoice number.' },
      errors: ['business_only', 'invalid_state'],
    },
    async (req, res, next) => {
      try {
        const { invoice, pdf } = await invoicePdf(ctx, callerOf(res), String(req.params.id))
        res.setHeader('content-type', 'application/octet-stream')
        res.setHeader('content-disposition', `attachment; filename="${invoice.number}.pdf"`)
        res.send(pdf)
      } catch (error) {
        next(error)
      }
    },
  )
  return router
}
