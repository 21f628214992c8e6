import { Router, type RequestHandler } from 'express'
import { createInvoiceRequestSchema, emptyBodySchema, listInvoicesQuerySchema } from '../../../src/schemas/index.js'
import type { ServiceContext } from '../../context.js'
import { renderInvoicePdf } from '../../pdf/invoice-pdf.js'
import { createInvoice, getInvoice, listInvoices, ownInvoice, requireBusiness, sendInvoice, voidInvoice } from '../../services/invoices.js'
import { invalidState } from '../../../src/errors.js'
import { authenticate, callerOf } from '../auth.js'
import { handle, idempotentReply } from '../handle.js'
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
  router.post(
    '/',
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      return idempotentReply(createInvoice(ctx, callerOf(res), parseWith(createInvoiceRequestSchema, req.body), key))
    }),
  )
  router.get(
    '/',
    handle(ctx, (req, res) => ({ body: listInvoices(ctx, callerOf(res), parseWith(listInvoicesQuerySchema, req.query, 'query')) })),
  )
  router.get(
    '/:id',
    handle(ctx, (req, res) => {
      parseWith(emptyBodySchema, req.query, 'query')
      return { body: getInvoice(ctx, callerOf(res), String(req.params.id)) }
    }),
  )
  router.post(
    '/:id/send',
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      parseWith(emptyBodySchema, req.body)
      return idempotentReply(sendInvoice(ctx, callerOf(res), String(req.params.id), key))
    }),
  )
  router.post(
    '/:id/void',
    handle(ctx, (req, res) => {
      const key = idempotencyKeyOf(req)
      parseWith(emptyBodySchema, req.body)
      return idempotentReply(voidInvoice(ctx, callerOf(res), String(req.params.id), key))
    }),
  )
  // The same bytes the customer downloads from the hosted page; the spec serves it as octet-stream.
  router.get('/:id/pdf', async (req, res, next) => {
    try {
      const invoice = ownInvoice(ctx, callerOf(res), String(req.params.id))
      if (invoice.status === 'draft') throw invalidState(`Invoice ${invoice.invoiceId} is still a draft; send it first.`)
      const pdf = await renderInvoicePdf(ctx, invoice)
      res.setHeader('content-type', 'application/octet-stream')
      res.setHeader('content-disposition', `attachment; filename="${invoice.number}.pdf"`)
      res.send(pdf)
    } catch (error) {
      next(error)
    }
  })
  return router
}
