import type { Request, Router } from 'express'
import { ApiError, invalidRequest } from '../../../../src/errors.js'
import { fieldPath } from '../../../../src/field-path.js'
import {
  DUE_DATE_RANGE,
  MAX_ITEMS,
  createInvoiceRequestSchema,
  invoiceStatusSchema,
  listInvoicesQuerySchema,
  payInvoiceRequestSchema,
  updateInvoiceRequestSchema,
  type Invoice,
  type InvoiceItem,
  type InvoiceStatus,
} from '../../../../src/schemas/index.js'

import { sellerVatNumber } from '../../../domain/invoice.js'
import { randomBase62 } from '../../../ids.js'
import { emailInvoice } from '../../../services/invoice-email.js'
import { presentSettings } from '../../../services/settings.js'
import {
  createInvoice,
  getInvoice,
  invoicePdf,
  listInvoices,
  ownInvoice,
  payInvoice,
  requireBusiness,
  sendInvoice,
  updateDraft,
  voidInvoice,
} from '../../../services/invoices.js'
import { safe, type SafeHtml } from '../../../templates.js'
import { parseWith } from '../../validate.js'
import { dashPath, errorFlash, type Dash, type DashboardKit, type PageHandler, type PageResult } from '../kit.js'
import { formatDay, formatTime } from '../../../../src/time.js'
import { formatFjd, parseUnitPrice } from '../../../../src/money.js'

const PAGE_SIZE = 20
/** How many invoices one call of listInvoices reads while looking for those of one status. */
const LIST_BATCH = 100
/** Blank item rows on the new-draft form, and added below a draft's items when editing. */
const NEW_ITEM_ROWS = 3
const EXTRA_EDIT_ROWS = 2
const IDEMPOTENCY_FIELD = 'idempotencyKey'

const invoicePath = (id: number | string): string => `/invoices/${encodeURIComponent(String(id))}`
const invoiceLabel = (invoice: Pick<Invoice, 'id' | 'number'>): string => invoice.number ?? `Draft #${invoice.id}`

/** `45050` → `450.50`: how a price is typed into the form. */
const dollarsOf = (cents: number): string => (cents / 100).toFixed(2)

/** The invoice form's fields as typed, converted to the API's request shape; blanks are `null`, for the schema to judge. */
interface InvoiceFormValues {
  customerName: string
  dueDate: string
  items: InvoiceItem[]
  customerEmail: string | null
  vatNumber: string | null
  taxLabel: string | null
  taxPercent: number | undefined
}

function itemsOf(fields: Record<string, string>): InvoiceItem[] {
  const items: InvoiceItem[] = []
  for (let row = 0; row < MAX_ITEMS; row++) {
    const description = fields[`item-${row}-description`]?.trim() ?? ''
    const quantity = fields[`item-${row}-quantity`]?.trim() ?? ''
    const price = fields[`item-${row}-unitPrice`]?.trim() ?? ''
    if (description === '' && quantity === '' && price === '') continue
    const param = (field: string): string => fieldPath(['items', items.length, field])
    if (!/^\d+$/.test(quantity)) throw invalidRequest(`Item row ${row + 1}: the quantity must be a whole number.`, param('quantity'))
    let unitPrice: number
    try {
      unitPrice = parseUnitPrice(price)
    } catch (error) {
      throw invalidRequest(`Item row ${row + 1}: ${(error as Error).message}`, param('unitPrice'))
    }
    items.push({ description, quantity: Number(quantity), unitPrice })
  }
  return items
}

function formValues(fields: Record<string, string>): InvoiceFormValues {
  const text = (name: string): string | null => {
    const value = fields[name]?.trim() ?? ''
    return value === '' ? null : value
  }
  const taxLabel = text('taxLabel')
  const percent = text('taxPercent')
  let taxPercent: number | undefined
  if (percent !== null) {
    // Written as the form asks, digits and a point: Number() alone took `1e1` and `0x10`, which the unit price refuses.
    if (!/^\d+(\.\d+)?$/.test(percent)) throw invalidRequest('The tax percent must be a number like 15 or 12.5.', 'taxPercent')
    taxPercent = Number(percent)
  } else if (taxLabel === null) {
    // An empty tax line: no label and no percent is how an invoice without tax looks.
    taxPercent = 0
  }
  return {
    customerName: fields.customerName ?? '',
    dueDate: fields.dueDate?.trim() ?? '',
    items: itemsOf(fields),
    customerEmail: text('customerEmail'),
    vatNumber: text('vatNumber'),
    taxLabel,
    taxPercent,
  }
}

/** The form's per-render key: submitting the same form twice is one change, as a retried API request is. */
function idempotencyKeyOf(fields: Record<string, string>): string {
  const key = fields[IDEMPOTENCY_FIELD] ?? ''
  if (!/^dash_[A-Za-z0-9_-]{16,64}$/.test(key)) throw invalidRequest('This form is incomplete; reload the page and try again.', IDEMPOTENCY_FIELD)
  return key
}

/** A draft as the invoice form's fields would send it. */
function invoiceFormText(invoice: Invoice): Record<string, string> {
  const text: Record<string, string> = {
    customerName: invoice.customerName,
    customerEmail: invoice.customerEmail ?? '',
    dueDate: invoice.dueDate,
    vatNumber: invoice.vatNumber ?? '',
    taxLabel: invoice.taxLabel ?? '',
    taxPercent: String(invoice.taxPercent),
  }
  invoice.items.forEach((item, row) => {
    text[`item-${row}-description`] = item.description
    text[`item-${row}-quantity`] = String(item.quantity)
    text[`item-${row}-unitPrice`] = dollarsOf(item.unitPrice)
  })
  return text
}

/** The list's filter as the address has it (empty when absent). */
interface InvoicesFilter {
  status: string
  startingAfter: string
}

/** The names of the filter in the address. */
const INVOICES_QUERY = ['status', 'starting_after']

function filterOf(req: Request): InvoicesFilter {
  const text = (name: string): string => {
    const value = req.query[name]
    return typeof value === 'string' ? value.trim() : ''
  }
  return { status: text('status'), startingAfter: text('starting_after') }
}

const listPath = (filter: InvoicesFilter): string => dashPath('/invoices', { status: filter.status, starting_after: filter.startingAfter })

/** The filter's values as the list reads them: a bad one is 400 naming it, before the list is read. */
function listFilterOf(filter: InvoicesFilter): { status: InvoiceStatus | undefined; startingAfter: number | undefined } {
  const status = filter.status === '' ? undefined : invoiceStatusSchema.safeParse(filter.status)
  if (status && !status.success) throw invalidRequest(`Choose a status: ${invoiceStatusSchema.options.join(', ')}.`, 'status')
  const query = parseWith(listInvoicesQuerySchema, { starting_after: filter.startingAfter === '' ? undefined : filter.startingAfter }, 'query')
  return { status: status?.data, startingAfter: query.starting_after }
}

/**
 * One page of the list, newest first. The API lists every status, so a
 * status filter reads through its pages until this page is full.
 */
function invoicesPage(kit: DashboardKit, dash: Dash, filter: InvoicesFilter): { invoices: Invoice[]; hasMore: boolean } {
  const { status, startingAfter: first } = listFilterOf(filter)
  const found: Invoice[] = []
  let startingAfter = first
  for (;;) {
    const page = listInvoices(kit.ctx, dash.caller, { limit: status ? LIST_BATCH : PAGE_SIZE, starting_after: startingAfter })
    for (const invoice of page.data) {
      if (status && invoice.status !== status) continue
      if (found.length === PAGE_SIZE) return { invoices: found, hasMore: true }
      found.push(invoice)
    }
    if (!page.hasMore) return { invoices: found, hasMore: false }
    if (!status) return { invoices: found, hasMore: true }
    startingAfter = page.data.at(-1)!.id
  }
}

/**
 * Invoices (Business accounts only): the list with a new-draft form, one
 * invoice with the actions its state allows, and its PDF. Every change goes
 * through the services behind `/v1/invoices` and `/_sim/invoices`.
 */
export function registerInvoicesPages(kit: DashboardKit, router: Router): void {
  const { ctx } = kit

  /** The explanation an individual merchant gets instead of a page, from the API's own rule. */
  const businessOnly = (dash: Dash): PageResult | undefined => {
    try {
      requireBusiness(dash.caller)
      return undefined
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      return { title: 'Invoices', section: 'invoices', status: error.status, content: kit.render('invoices-business-only', { message: error.message }) }
    }
  }

  const idempotencyField = (): SafeHtml => kit.render('hidden', { name: IDEMPOTENCY_FIELD, value: `dash_${randomBase62(24)}` })

  const itemRow = (row: number, text: Record<string, string>): SafeHtml => {
    const name = (field: string): string => `item-${row}-${field}`
    return kit.render('invoice-item-row', {
      row: row + 1,
      descriptionName: name('description'),
      description: text[name('description')] ?? '',
      quantityName: name('quantity'),
      quantity: text[name('quantity')] ?? '',
      unitPriceName: name('unitPrice'),
      unitPrice: text[name('unitPrice')] ?? '',
    })
  }

  /**
   * The new-draft and edit forms' fields (the two never share a page, so their ids cannot clash), filled from
   * `text`: what was typed when the simulator refused the form, else the draft's values as the form sends them.
   */
  const invoiceFields = (dash: Dash, text: Record<string, string>, extraRows: number): SafeHtml => {
    const filledRows = Array.from({ length: MAX_ITEMS }, (_, row) => row).filter((row) =>
      ['description', 'quantity', 'unitPrice'].some((field) => (text[`item-${row}-${field}`] ?? '') !== ''),
    )
    const rows = Math.min(MAX_ITEMS, Math.max(NEW_ITEM_ROWS, (filledRows.at(-1) ?? -1) + 1 + extraRows))
    const settingsVat = presentSettings(dash.caller.merchant, dash.caller.mode).vatNumber
    return kit.render('invoice-fields', {
      customerName: text.customerName ?? '',
      customerEmail: text.customerEmail ?? '',
      dueDate: text.dueDate ?? '',
      dueDateFirst: DUE_DATE_RANGE.first,
      dueDateLast: DUE_DATE_RANGE.last,
      vatNumber: text.vatNumber ?? '',
      vatNumberHint:
        settingsVat === null
          ? 'Leave empty to use your VAT number from Settings; none is set there yet.'
          : `Leave empty to print yours from Settings, ${settingsVat}.`,
      taxLabel: text.taxLabel ?? '',
      taxPercent: text.taxPercent ?? '',
      itemRows: kit.join(Array.from({ length: rows }, (_, row) => itemRow(row, text))),
      maxItems: MAX_ITEMS,
    })
  }

  const statusOptions = (selected: string): SafeHtml =>
    kit.options([{ value: '', label: 'All statuses' }, ...invoiceStatusSchema.options.map((status) => ({ value: status, label: status }))], selected)

  const listPage: PageHandler = (req, dash) => {
    const { mode } = dash.caller
    const filter = filterOf(req)
    let list: { invoices: Invoice[]; hasMore: boolean } | undefined
    let problem: ApiError | undefined
    try {
      list = invoicesPage(kit, dash, filter)
    } catch (error) {
      // A bad filter or cursor keeps the page on screen, with what is wrong above the list.
      if (!(error instanceof ApiError)) throw error
      problem = error
    }
    const links: { label: string; href: string }[] = []
    if (filter.startingAfter !== '') links.push({ label: 'First page', href: listPath({ ...filter, startingAfter: '' }) })
    if (list?.hasMore) links.push({ label: 'Next page', href: listPath({ ...filter, startingAfter: String(list.invoices.at(-1)!.id) }) })
    return {
      title: 'Invoices',
      section: 'invoices',
      status: problem?.status,
      content: kit.render('invoices-page', {
        mode,
        filter: kit.render('invoices-filter', { action: dashPath('/invoices'), statusOptions: statusOptions(filter.status), clear: dashPath('/invoices') }),
        problem: problem
          ? kit.flash(errorFlash(problem)!)
          : safe(''),
        table: list
          ? kit.table(
              ['Invoice', 'Customer', 'Total', 'Status', 'Overdue', 'Due', 'Created'],
              list.invoices.map((invoice) => [
                kit.link(invoicePath(invoice.id), invoiceLabel(invoice)),
                kit.freeText(invoice.customerName),
                formatFjd(invoice.total),
                kit.statusBadge(invoice.status),
                invoice.overdue ? kit.statusBadge('overdue') : '—',
                formatDay(invoice.dueDate),
                formatTime(invoice.createdAt),
              ]),
              filter.status === '' ? `No Invoices in ${mode} mode yet.` : `No ${filter.status} Invoices in ${mode} mode.`,
            )
          : safe(''),
        pager: kit.pager('Invoices', links),
        createForm: kit.form(dash, {
          action: '/invoices',
          submit: 'Create draft',
          className: 'stack-form',
          fields: kit.join([idempotencyField(), invoiceFields(dash, kit.typed(dash, '/invoices') ?? {}, 0)]),
        }),
      }),
    }
  }
  kit.page(router, '/invoices', listPage, { query: INVOICES_QUERY, values: (req) => listFilterOf(filterOf(req)), guard: businessOnly })

  kit.action(router, '/invoices', (_req, dash, input) => {
    requireBusiness(dash.caller)
    const key = idempotencyKeyOf(input.fields)
    const { customerEmail, vatNumber, taxLabel, ...values } = formValues(input.fields)
    const request = parseWith(createInvoiceRequestSchema, {
      ...values,
      customerEmail: customerEmail ?? undefined,
      vatNumber: vatNumber ?? undefined,
      taxLabel: taxLabel ?? undefined,
    })
    const { body: invoice, replayed } = createInvoice(ctx, dash.caller, request, key)
    const text = replayed
      ? `This form was already submitted: here is the draft it made, #${invoice.id}.`
      : `Draft #${invoice.id} created for ${invoice.customerName}: ${formatFjd(invoice.total)}. Send it to give it a number.`
    return { redirect: dashPath(invoicePath(invoice.id)), flash: { tone: 'ok', text } }
  })

  const actions = (dash: Dash, invoice: Invoice): SafeHtml => {
    const path = invoicePath(invoice.id)
    if (invoice.status === 'draft') {
      return kit.form(dash, { action: `${path}/send`, submit: 'Send invoice', fields: idempotencyField() })
    }
    if (invoice.status !== 'sent') return safe('')
    return kit.join([
      kit.form(dash, { action: `${path}/email`, submit: 'E-mail to customer', style: 'secondary' }),
      kit.form(dash, { action: `${path}/pay`, submit: 'Mark paid (simulate customer)', style: 'secondary' }),
      kit.form(dash, {
        action: `${path}/void`,
        submit: 'Void invoice',
        style: 'danger',
        fields: idempotencyField(),
        confirm: `Void invoice ${invoiceLabel(invoice)}? The customer can no longer pay it.`,
      }),
    ])
  }

  const notes: Record<Invoice['status'], string> = {
    draft: 'A draft: edit it below, then send it to give it a number and a page the customer pays on.',
    sent: 'Sent: the customer can pay it on its page.',
    paid: 'Paid by the customer.',
    void: 'Void: it can no longer be paid; its number is never reused.',
  }

  const invoicePage: PageHandler = (req, dash) => {
    const id = String(req.params.id)
    const invoice = getInvoice(ctx, dash.caller, id)
    const record = ownInvoice(ctx, dash.caller, id)
    const path = invoicePath(invoice.id)
    const label = invoiceLabel(invoice)
    const sessions = record.checkoutSessionIds.map((sessionId) => kit.link(`/sessions/${encodeURIComponent(sessionId)}`, sessionId))
    const draft = invoice.status === 'draft'
    const shownVatNumber = sellerVatNumber(record, dash.caller.merchant.settings)
    return {
      title: `Invoice ${label}`,
      section: 'invoices',
      content: kit.render('invoice-page', {
        back: kit.link('/invoices', '← All Invoices'),
        heading: label,
        status: kit.statusBadge(invoice.status),
        overdue: invoice.overdue ? kit.statusBadge('overdue') : safe(''),
        note: notes[invoice.status],
        actions: actions(dash, invoice),
        id: invoice.id,
        number: invoice.number ?? 'Not yet: assigned when sent',
        mode: invoice.mode,
        customerName: invoice.customerName,
        customerEmail: invoice.customerEmail ?? 'None (needed to e-mail the invoice)',
        // The seller's number the document shows, and where it comes from.
        vatNumber:
          invoice.vatNumber ??
          (shownVatNumber === null ? 'None (set yours in Settings)' : `${shownVatNumber} (from Settings)`),
        dueDate: formatDay(invoice.dueDate),
        overdueText: invoice.overdue ? 'Yes: past its due date in Fiji' : 'No',
        hostedPage: draft ? safe('Once sent') : kit.render('invoice-hosted-link', { url: invoice.url }),
        sessions: sessions.length === 0 ? safe('None yet') : kit.join(sessions, ', '),
        created: formatTime(invoice.createdAt),
        sent: invoice.sentAt === null ? 'Not yet' : formatTime(invoice.sentAt),
        paid: invoice.paidAt === null ? 'Not paid' : formatTime(invoice.paidAt),
        voided: invoice.voidedAt === null ? 'Not voided' : formatTime(invoice.voidedAt),
        items: kit.table(
          ['Description', 'Quantity', 'Unit price', 'Amount'],
          invoice.items.map((item) => [kit.freeText(item.description), String(item.quantity), formatFjd(item.unitPrice), formatFjd(item.quantity * item.unitPrice)]),
          'No items.',
        ),
        subtotal: formatFjd(invoice.subtotal),
        taxLabel: invoice.taxLabel ?? 'None',
        taxPercent: `${invoice.taxPercent}%`,
        tax: formatFjd(invoice.tax),
        total: formatFjd(invoice.total),
        edit: draft
          ? kit.render('invoice-edit', {
              form: kit.form(dash, {
                action: `${path}/edit`,
                submit: 'Save draft',
                className: 'stack-form',
                fields: invoiceFields(dash, kit.typed(dash, `${path}/edit`) ?? invoiceFormText(invoice), EXTRA_EDIT_ROWS),
              }),
            })
          : safe(''),
        pdf: draft
          ? safe('')
          : kit.render('invoice-pdf', { src: dashPath(`${path}/pdf`), filename: `${invoice.number}.pdf`, title: `PDF of invoice ${label}` }),
      }),
    }
  }
  kit.page(router, '/invoices/:id', invoicePage, { guard: businessOnly })

  kit.action(router, '/invoices/:id/edit', (req, dash, input) => {
    requireBusiness(dash.caller)
    const patch = parseWith(updateInvoiceRequestSchema, formValues(input.fields))
    const invoice = updateDraft(ctx, dash.caller, String(req.params.id), patch)
    return {
      redirect: dashPath(invoicePath(invoice.id)),
      flash: { tone: 'ok', text: `Draft #${invoice.id} saved: ${invoice.items.length} item(s), total ${formatFjd(invoice.total)}.` },
    }
  })

  kit.action(router, '/invoices/:id/send', (req, dash, input) => {
    requireBusiness(dash.caller)
    const { body: invoice } = sendInvoice(ctx, dash.caller, String(req.params.id), idempotencyKeyOf(input.fields))
    return {
      redirect: dashPath(invoicePath(invoice.id)),
      flash: { tone: 'ok', text: `Sent as ${invoice.number}. Share its page with the customer, or e-mail it from here.` },
    }
  })

  kit.action(router, '/invoices/:id/void', (req, dash, input) => {
    requireBusiness(dash.caller)
    const { body: invoice } = voidInvoice(ctx, dash.caller, String(req.params.id), idempotencyKeyOf(input.fields))
    return { redirect: dashPath(invoicePath(invoice.id)), flash: { tone: 'ok', text: `Voided ${invoice.number}: the customer can no longer pay it.` } }
  })

  kit.action(router, '/invoices/:id/email', async (req, dash) => {
    requireBusiness(dash.caller)
    const id = String(req.params.id)
    const email = await emailInvoice(ctx, dash.caller, id)
    return {
      redirect: dashPath(invoicePath(id)),
      flash: { tone: 'ok', text: `E-mailed to ${email.to} with the PDF attached. The simulator sends no mail: it is in the Outbox.` },
    }
  })

  kit.action(router, '/invoices/:id/pay', (req, dash) => {
    requireBusiness(dash.caller)
    const id = String(req.params.id)
    payInvoice(ctx, dash.caller, id, parseWith(payInvoiceRequestSchema, { outcome: 'succeeded' }))
    return { redirect: dashPath(invoicePath(id)), flash: { tone: 'ok', text: 'Paid, as a customer paying by card would.' } }
  })

  // The API's PDF, shown inline so the detail page can frame it.
  kit.resource(
    router,
    '/invoices/:id/pdf',
    async (req, res, dash) => {
      const { invoice, pdf } = await invoicePdf(ctx, dash.caller, String(req.params.id))
      res.setHeader('Content-Security-Policy', "frame-ancestors 'self'")
      res.setHeader('X-Frame-Options', 'SAMEORIGIN')
      res.setHeader('Content-Type', 'application/pdf')
      res.setHeader('Content-Disposition', `inline; filename="${invoice.number}.pdf"`)
      res.send(pdf)
    },
    { guard: businessOnly },
  )
}
