import type { CaseContext } from '../context.js'
import { exchange } from '../http.js'
import {
  addDays,
  createInvoice,
  DAY,
  defineCases,
  expectInvalid,
  fijiDate,
  invoiceBody,
  MAX_AMOUNT,
  openPage,
  sendInvoice,
  voidInvoice,
  type Invoice,
} from './support.js'

const INVOICE_NUMBER = /^INV-[0-9]+$/

/** A create request's answer, whatever it is. */
const tryCreate = (t: CaseContext, changes: Record<string, unknown>) => t.api.post('/v1/invoices', invoiceBody(changes), { idempotencyKey: t.newKey() })

/** One line of `quantity` × `unitPrice`. */
const item = (quantity: number, unitPrice: number, description = 'Masi print') => ({ description, quantity, unitPrice })

/** The Invoice table's fields and types. */
function checkInvoiceFields(t: CaseContext, invoice: Invoice): void {
  const problems: string[] = []
  const nullableString = (value: unknown) => value === null || typeof value === 'string'
  const nullableInteger = (value: unknown) => value === null || Number.isInteger(value)
  if (!Number.isInteger(invoice.id)) problems.push('id is not an integer')
  if (!nullableString(invoice.number)) problems.push('number is not a string or null')
  if (!['draft', 'sent', 'paid', 'void'].includes(invoice.status)) problems.push(`status ${JSON.stringify(invoice.status)}`)
  if (typeof invoice.overdue !== 'boolean') problems.push('overdue is not a boolean')
  if (invoice.mode !== 'test' && invoice.mode !== 'live') problems.push(`mode ${JSON.stringify(invoice.mode)}`)
  if (typeof invoice.customerName !== 'string') problems.push('customerName is not a string')
  if (!nullableString(invoice.customerEmail)) problems.push('customerEmail is not a string or null')
  if (!Array.isArray(invoice.items)) problems.push('items is not a list')
  if (!nullableString(invoice.taxLabel)) problems.push('taxLabel is not a string or null')
  if (typeof invoice.taxPercent !== 'number') problems.push('taxPercent is not a number')
  if (!nullableString(invoice.vatNumber)) problems.push('vatNumber is not a string or null')
  if (typeof invoice.dueDate !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(invoice.dueDate)) problems.push('dueDate is not YYYY-MM-DD')
  for (const field of ['subtotal', 'tax', 'total'] as const) if (!Number.isInteger(invoice[field])) problems.push(`${field} is not integer cents`)
  if (typeof invoice.url !== 'string') problems.push('url is not a string')
  if (!nullableString(invoice.pdfUrl)) problems.push('pdfUrl is not a string or null')
  if (!Number.isInteger(invoice.createdAt)) problems.push('createdAt is not integer Unix ms')
  if (!nullableInteger(invoice.sentAt)) problems.push('sentAt is not integer Unix ms or null')
  if (!nullableInteger(invoice.paidAt)) problems.push('paidAt is not integer Unix ms or null')
  if (problems.length > 0) t.fail(`the Invoice: ${problems.join('; ')}`)
}

export const invoiceCases = defineCases([
  {
    id: 'invoices/create-draft',
    title: 'POST /v1/invoices answers 201 with a draft: no number, no sentAt, no pdfUrl, no tax line',
    rules: ['invoice.fields', 'invoice-states.create', 'invoice.tax-line', 'invoice.pdf-url', 'invoice.sent-paid-at', 'invoice-endpoints.create', 'create-invoice.required', 'service.invoices-flow'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      checkInvoiceFields(t, draft)
      t.check(draft.status === 'draft' && draft.number === null, `a new Invoice is ${draft.status} with number ${draft.number}`)
      t.check(draft.sentAt === null && draft.paidAt === null && draft.pdfUrl === null, 'a draft has sentAt, paidAt or pdfUrl')
      t.check(draft.taxLabel === null && draft.taxPercent === 0 && draft.tax === 0, 'an Invoice without a tax line has taxLabel, taxPercent or tax')
      t.check(draft.overdue === false && draft.mode === 'test', 'a new test draft is overdue or not in test mode')
      const read = t.ok(await t.api.get(`/v1/invoices/${draft.id}`)) as Invoice
      t.check(read.id === draft.id && read.status === 'draft', 'GET /v1/invoices/{id} does not answer the draft')
    },
  },
  {
    id: 'invoices/draft-url',
    title: 'A draft\'s url does not work yet; once sent it does',
    rules: ['invoice-states.create', 'invoice.url', 'invoice-states.send'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      const early = await openPage(t, draft.url)
      t.check(early.status >= 400, `the draft's url answered ${early.status}`)
      const sent = await sendInvoice(t, draft.id)
      const page = await openPage(t, sent.url)
      t.check(page.status === 200, `the sent Invoice's url answered ${page.status}`)
    },
  },
  {
    id: 'invoices/optional-fields',
    title: 'customerEmail, vatNumber and the tax line are kept as sent',
    rules: ['create-invoice.optional', 'create-invoice.tax-label', 'invoice.fields'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t, { customerEmail: 'ana@example.fj', vatNumber: 'FJ-123456', taxLabel: 'VAT', taxPercent: 15 })
      t.check(draft.customerEmail === 'ana@example.fj' && draft.vatNumber === 'FJ-123456', 'customerEmail or vatNumber not kept')
      t.check(draft.taxLabel === 'VAT' && draft.taxPercent === 15, 'the tax line is not kept')
    },
  },
  {
    id: 'invoices/totals',
    title: 'subtotal sums the items, tax is taxPercent of it, total adds them',
    rules: ['invoice.totals', 'invoice.tax-line', 'create-invoice.tax-percent', 'invoice-item.unit-price'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t, { items: [item(3, 1250), item(1, 999, 'Tanoa')], taxLabel: 'VAT', taxPercent: 12.5 })
      t.check(draft.subtotal === 4749, `subtotal ${draft.subtotal}, expected 3 × 1250 + 999 = 4749`)
      // 593.625 cents: the rounding rule is not shown, so either whole cent is right.
      t.check(draft.tax === 593 || draft.tax === 594, `tax ${draft.tax}, expected 12.5 % of 4749 = 593.625`)
      t.check(draft.total === draft.subtotal + draft.tax, `total ${draft.total} is not subtotal + tax`)
    },
  },
  {
    id: 'invoices/send',
    title: 'Send answers 200: a number INV-<digits>, sentAt and pdfUrl set',
    rules: ['invoice-states.send', 'invoice.number', 'invoice.pdf-url', 'invoice.sent-paid-at', 'invoice-endpoints.send', 'invoice.fields'],
    needs: ['business'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      checkInvoiceFields(t, sent)
      t.check(sent.status === 'sent', `status ${sent.status} after send`)
      t.check(typeof sent.number === 'string' && INVOICE_NUMBER.test(sent.number), `number ${JSON.stringify(sent.number)} is not INV-<digits>`)
      t.check(Number.isInteger(sent.sentAt) && typeof sent.pdfUrl === 'string', 'sentAt or pdfUrl not set on send')
      t.check(sent.paidAt === null, 'paidAt is set on an unpaid Invoice')
    },
  },
  {
    id: 'invoices/send-twice',
    title: 'Sending an Invoice that is not a draft is 409 invalid_state',
    rules: ['invoice-endpoints.send', 'errors.invalid-state'],
    needs: ['business'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      t.expectError(await t.api.post(`/v1/invoices/${sent.id}/send`, undefined, { idempotencyKey: t.newKey() }), 409, 'invalid_state')
      const voided = await voidInvoice(t, sent.id)
      t.expectError(await t.api.post(`/v1/invoices/${voided.id}/send`, undefined, { idempotencyKey: t.newKey() }), 409, 'invalid_state')
    },
  },
  {
    id: 'invoices/number-never-reused',
    title: 'A voided Invoice keeps its number, and the next Invoice gets another',
    rules: ['invoice.number', 'invoice-states.void'],
    needs: ['business'],
    async run(t) {
      const first = await sendInvoice(t, (await createInvoice(t)).id)
      const voided = await voidInvoice(t, first.id)
      t.check(voided.number === first.number, `void changed the number from ${first.number} to ${voided.number}`)
      const second = await sendInvoice(t, (await createInvoice(t)).id)
      t.check(second.number !== first.number, `the next Invoice reused ${first.number}`)
      const read = t.ok(await t.api.get(`/v1/invoices/${first.id}`)) as Invoice
      t.check(read.number === first.number, 'the void Invoice lost its number')
    },
  },
  {
    id: 'invoices/void',
    title: 'Void of a sent Invoice answers 200 void',
    rules: ['invoice-states.void', 'invoice-endpoints.void'],
    needs: ['business'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      const voided = await voidInvoice(t, sent.id)
      t.check(voided.status === 'void', `status ${voided.status} after void`)
    },
  },
  {
    id: 'invoices/void-not-payable',
    title: 'A void Invoice can no longer be paid',
    rules: ['invoice-states.void'],
    needs: ['business', 'sim'],
    async run(t) {
      const voided = await voidInvoice(t, (await sendInvoice(t, (await createInvoice(t)).id)).id)
      const pay = await t.sim.request('the customer tries to pay the void invoice', 'POST', `/_sim/invoices/${voided.id}/pay`, { outcome: 'succeeded' })
      t.check(pay.status >= 400, `paying a void Invoice answered ${pay.status}`)
      const read = t.ok(await t.api.get(`/v1/invoices/${voided.id}`)) as Invoice
      t.check(read.status === 'void' && read.paidAt === null, `the void Invoice is ${read.status}`)
    },
  },
  {
    id: 'invoices/void-refused',
    title: 'Void of a draft or of a void Invoice is 409 invalid_state',
    rules: ['invoice-states.void-refused', 'invoice-endpoints.void', 'errors.invalid-state'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      t.expectError(await t.api.post(`/v1/invoices/${draft.id}/void`, undefined, { idempotencyKey: t.newKey() }), 409, 'invalid_state', 'a draft')
      const voided = await voidInvoice(t, (await sendInvoice(t, draft.id)).id)
      t.expectError(await t.api.post(`/v1/invoices/${voided.id}/void`, undefined, { idempotencyKey: t.newKey() }), 409, 'invalid_state', 'a void Invoice')
    },
  },
  {
    id: 'invoices/void-paid',
    title: 'Void of a paid Invoice is 409 invalid_state',
    rules: ['invoice-states.void-refused', 'errors.invalid-state'],
    needs: ['business', 'sim'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      await t.sim.payInvoice(sent.id, 'succeeded')
      t.expectError(await t.api.post(`/v1/invoices/${sent.id}/void`, undefined, { idempotencyKey: t.newKey() }), 409, 'invalid_state')
    },
  },
  {
    id: 'invoices/void-paying',
    title: 'Void while the customer is paying is refused with a 409, and the Invoice stays sent',
    rules: ['invoice-states.void-refused'],
    needs: ['business', 'sim'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      await t.sim.payInvoice(sent.id, 'processing')
      const answer = await t.api.post(`/v1/invoices/${sent.id}/void`, undefined, { idempotencyKey: t.newKey() })
      t.expectStatus(answer, 409)
      t.expectEnvelope(answer)
      const read = t.ok(await t.api.get(`/v1/invoices/${sent.id}`)) as Invoice
      t.check(read.status === 'sent', `the Invoice is ${read.status} after the refused void`)
    },
  },
  {
    id: 'invoices/pay',
    title: 'Paying on the Invoice\'s page makes it paid with paidAt',
    rules: ['invoice-states.pay', 'invoice.sent-paid-at'],
    needs: ['business', 'sim'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      await t.sim.payInvoice(sent.id, 'succeeded')
      const paid = t.ok(await t.api.get(`/v1/invoices/${sent.id}`)) as Invoice
      t.check(paid.status === 'paid' && Number.isInteger(paid.paidAt), `the Invoice is ${paid.status} with paidAt ${paid.paidAt}`)
      t.check(paid.number === sent.number, 'paying changed the number')
    },
  },
  {
    id: 'invoices/overdue',
    title: 'A sent, unpaid Invoice is overdue after its due date (Pacific/Fiji), and can still be paid',
    rules: ['invoice.overdue'],
    needs: ['business', 'sim'],
    async run(t) {
      const today = fijiDate(await t.sim.now())
      const draft = await createInvoice(t, { dueDate: today })
      const sent = await sendInvoice(t, draft.id)
      t.check(sent.overdue === false, 'an Invoice due today is overdue')
      const other = await createInvoice(t, { dueDate: today })
      await t.sim.advance(2 * DAY)
      const late = t.ok(await t.api.get(`/v1/invoices/${sent.id}`)) as Invoice
      t.check(late.overdue === true && late.status === 'sent', `two days after its due date the Invoice has overdue ${late.overdue}, status ${late.status}`)
      const lateDraft = t.ok(await t.api.get(`/v1/invoices/${other.id}`)) as Invoice
      t.check(lateDraft.overdue === false, 'a draft past its due date is overdue')
      await t.sim.payInvoice(sent.id, 'succeeded')
      const paid = t.ok(await t.api.get(`/v1/invoices/${sent.id}`)) as Invoice
      t.check(paid.status === 'paid' && paid.overdue === false, `the overdue Invoice, paid, is ${paid.status} with overdue ${paid.overdue}`)
    },
  },
  {
    id: 'invoices/pdf',
    title: 'The PDF of a sent Invoice is application/octet-stream, also at pdfUrl with the secret key',
    rules: ['invoice-endpoints.pdf', 'invoice.pdf-url', 'intro.json-bodies', 'service.invoices-flow'],
    needs: ['business'],
    async run(t) {
      const sent = await sendInvoice(t, (await createInvoice(t)).id)
      const pdf = await t.api.get(`/v1/invoices/${sent.id}/pdf`)
      t.expectStatus(pdf, 200)
      t.check((pdf.headers.get('content-type') ?? '').startsWith('application/octet-stream'), `the PDF is ${pdf.headers.get('content-type')}`)
      t.check(pdf.bytes !== undefined && Buffer.from(pdf.bytes.subarray(0, 5)).toString('latin1') === '%PDF-', 'the body is not a PDF')
      const { response, bytes: pdfBytes } = await exchange(sent.pdfUrl!, { headers: { authorization: `Bearer ${t.merchant.secret}` }, asBytes: () => true }, t.target.timeoutMs)
      const bytes = Buffer.from(pdfBytes ?? [])
      t.steps.push({ request: { method: 'GET', path: '<pdfUrl>', auth: 'secret' }, response: { status: response.status, body: '<bytes>' } })
      t.check(response.status === 200 && bytes.subarray(0, 5).toString('latin1') === '%PDF-', `pdfUrl answered ${response.status} without a PDF`)
    },
  },
  {
    id: 'invoices/pdf-draft',
    title: 'The PDF of a draft is 409 invalid_state',
    rules: ['invoice-endpoints.pdf', 'errors.invalid-state'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      t.expectError(await t.api.get(`/v1/invoices/${draft.id}/pdf`), 409, 'invalid_state')
    },
  },
  {
    id: 'invoices/not-found',
    title: 'An unknown Invoice id is 404 on every Invoice route',
    rules: ['invoice-endpoints.get', 'errors.not-found'],
    needs: ['business'],
    async run(t) {
      const missing = 2_000_000_000
      for (const answer of [
        await t.api.get(`/v1/invoices/${missing}`),
        await t.api.post(`/v1/invoices/${missing}/send`, undefined, { idempotencyKey: t.newKey() }),
        await t.api.post(`/v1/invoices/${missing}/void`, undefined, { idempotencyKey: t.newKey() }),
        await t.api.get(`/v1/invoices/${missing}/pdf`),
      ]) {
        t.expectStatus(answer, 404)
        t.expectEnvelope(answer)
      }
    },
  },
  {
    id: 'invoices/list',
    title: 'The list is newest first with hasMore; starting_after gives older Invoices',
    rules: ['lists.invoices', 'invoice-endpoints.list'],
    needs: ['business'],
    async run(t) {
      const made = [await createInvoice(t), await createInvoice(t), await createInvoice(t)]
      const first = t.ok(await t.api.get('/v1/invoices?limit=2'))
      t.check(typeof first.hasMore === 'boolean' && first.hasMore === true, `a page of 2 of 3 or more has hasMore ${first.hasMore}`)
      t.check(first.data[0]?.id === made[2]!.id && first.data[1]?.id === made[1]!.id, 'the first page is not the two newest Invoices')
      const older = t.ok(await t.api.get(`/v1/invoices?limit=1&starting_after=${made[1]!.id}`))
      t.check(older.data[0]?.id === made[0]!.id, 'starting_after does not give the next older Invoice')
    },
  },
  {
    id: 'invoices/list-limit',
    title: 'The Invoice list takes limit 1 to 100, 10 by default',
    rules: ['limits.list-limit', 'invoice-endpoints.list', 'errors.invalid-request'],
    needs: ['business'],
    async run(t) {
      for (let index = 0; index < 11; index++) await createInvoice(t)
      const page = t.ok(await t.api.get('/v1/invoices', { record: 'shape' }))
      t.check(page.data.length === 10 && page.hasMore === true, `the default page holds ${page.data.length} Invoices (hasMore ${page.hasMore})`)
      expectInvalid(t, [
        ['limit 0', await t.api.get('/v1/invoices?limit=0')],
        ['limit 101', await t.api.get('/v1/invoices?limit=101')],
      ])
    },
  },
  {
    id: 'invoices/total-cap',
    title: 'A total of 499999 cents is taken; 500000, or tax pushing it there, is 400 invalid_request',
    rules: ['limits.invoice-total', 'invoice-endpoints.create-cap', 'errors.invalid-request'],
    needs: ['business'],
    async run(t) {
      const atCap = await createInvoice(t, { items: [item(1, MAX_AMOUNT)] })
      t.check(atCap.total === MAX_AMOUNT, `total ${atCap.total}`)
      expectInvalid(t, [
        ['a total of 500000', await tryCreate(t, { items: [item(1, 250_000), item(1, 250_000)] })],
        ['tax taking the total to 550000', await tryCreate(t, { items: [item(1, 460_000)], taxLabel: 'VAT', taxPercent: 10 })],
      ])
    },
  },
  {
    id: 'invoices/total-cap-live',
    title: 'The Invoice cap holds in live mode too',
    rules: ['limits.invoice-total'],
    needs: ['business', 'live'],
    async run(t) {
      const live = t.as((await t.sim.unlockLive()).secret, 'live secret')
      const atCap = t.ok(await live.post('/v1/invoices', invoiceBody({ items: [item(1, MAX_AMOUNT)] }), { idempotencyKey: t.newKey() }), 201) as Invoice
      t.check(atCap.mode === 'live' && atCap.total === MAX_AMOUNT, `the live Invoice is ${atCap.mode} with total ${atCap.total}`)
      expectInvalid(t, [['a live total of 500000', await live.post('/v1/invoices', invoiceBody({ items: [item(2, 250_000)] }), { idempotencyKey: t.newKey() })]])
    },
  },
  {
    id: 'invoices/send-cap',
    title: 'Send refuses a draft whose total reached the cap (after a dashboard edit) with 400 invalid_request',
    rules: ['invoice-endpoints.send', 'errors.invalid-request', 'limits.invoice-total'],
    needs: ['business', 'sim'],
    async run(t) {
      const draft = await createInvoice(t)
      const edit = await t.sim.request('edit the draft on the dashboard: total 600000', 'PATCH', `/_sim/invoices/${draft.id}`, { items: [item(2, 300_000)] })
      t.check(edit.status === 200, `the dashboard edit answered ${edit.status}`)
      t.expectError(await t.api.post(`/v1/invoices/${draft.id}/send`, undefined, { idempotencyKey: t.newKey() }), 400, 'invalid_request')
    },
  },
  {
    id: 'invoices/items-limits',
    title: 'items takes 1 to 50 entries',
    rules: ['limits.invoice-items', 'create-invoice.items'],
    needs: ['business'],
    async run(t) {
      await createInvoice(t, { items: Array.from({ length: 50 }, () => item(1, 100)) })
      expectInvalid(t, [
        ['no items', await tryCreate(t, { items: [] })],
        ['51 items', await tryCreate(t, { items: Array.from({ length: 51 }, () => item(1, 100)) })],
      ])
    },
  },
  {
    id: 'invoices/quantity-limits',
    title: 'quantity takes 1 to 9999',
    rules: ['limits.item-quantity', 'invoice-item.quantity'],
    needs: ['business'],
    async run(t) {
      await createInvoice(t, { items: [item(9999, 50)] })
      expectInvalid(t, [
        ['quantity 0', await tryCreate(t, { items: [item(0, 100)] })],
        ['quantity 10000', await tryCreate(t, { items: [item(10_000, 1)] })],
        ['quantity 1.5', await tryCreate(t, { items: [item(1.5, 100)] })],
      ])
    },
  },
  {
    id: 'invoices/description-limits',
    title: 'An item description is required, 200 characters at most',
    rules: ['limits.item-description', 'invoice-item.description'],
    needs: ['business'],
    async run(t) {
      await createInvoice(t, { items: [item(1, 100, 'd'.repeat(200))] })
      expectInvalid(t, [
        ['201 characters', await tryCreate(t, { items: [item(1, 100, 'd'.repeat(201))] })],
        ['no description', await tryCreate(t, { items: [{ quantity: 1, unitPrice: 100 }] })],
      ])
    },
  },
  {
    id: 'invoices/unit-price',
    title: 'unitPrice is required whole cents',
    rules: ['invoice-item.unit-price', 'intro.money-cents'],
    needs: ['business'],
    async run(t) {
      expectInvalid(t, [
        ['unitPrice 12.5', await tryCreate(t, { items: [item(1, 12.5)] })],
        ['no unitPrice', await tryCreate(t, { items: [{ description: 'x', quantity: 1 }] })],
      ])
    },
  },
  {
    id: 'invoices/customer-name-limits',
    title: 'customerName is required, 100 characters at most',
    rules: ['limits.customer-name', 'create-invoice.customer-name', 'create-invoice.required'],
    needs: ['business'],
    async run(t) {
      await createInvoice(t, { customerName: 'n'.repeat(100) })
      expectInvalid(t, [
        ['101 characters', await tryCreate(t, { customerName: 'n'.repeat(101) })],
        ['no customerName', await tryCreate(t, { customerName: undefined })],
      ])
    },
  },
  {
    id: 'invoices/due-date',
    title: 'dueDate is a required YYYY-MM-DD date',
    rules: ['create-invoice.due-date', 'create-invoice.required'],
    needs: ['business'],
    async run(t) {
      const dueDate = addDays(fijiDate(Date.now()), 30)
      const draft = await createInvoice(t, { dueDate })
      t.check(draft.dueDate === dueDate, `dueDate ${draft.dueDate}, sent ${dueDate}`)
      expectInvalid(t, [
        ['2030/01/31', await tryCreate(t, { dueDate: '2030/01/31' })],
        ['2030-02-30', await tryCreate(t, { dueDate: '2030-02-30' })],
        ['no dueDate', await tryCreate(t, { dueDate: undefined })],
        ['no items', await tryCreate(t, { items: undefined })],
      ])
    },
  },
  {
    id: 'invoices/tax-percent-limits',
    title: 'taxPercent takes up to 100 with 2 decimal places; taxLabel needs it',
    rules: ['limits.tax-percent', 'create-invoice.tax-percent', 'create-invoice.tax-label'],
    needs: ['business'],
    async run(t) {
      await createInvoice(t, { taxLabel: 'VAT', taxPercent: 100 })
      await createInvoice(t, { taxLabel: 'VAT', taxPercent: 12.34 })
      expectInvalid(t, [
        ['100.01', await tryCreate(t, { taxLabel: 'VAT', taxPercent: 100.01 })],
        ['12.345', await tryCreate(t, { taxLabel: 'VAT', taxPercent: 12.345 })],
        ['-1', await tryCreate(t, { taxLabel: 'VAT', taxPercent: -1 })],
        ['taxLabel without taxPercent', await tryCreate(t, { taxLabel: 'VAT' })],
      ])
    },
  },
  {
    id: 'invoices/no-api-edit',
    title: 'The API has no way to edit an Invoice, draft or sent',
    rules: ['invoice-states.no-api-edit'],
    needs: ['business'],
    async run(t) {
      const draft = await createInvoice(t)
      for (const answer of [
        await t.api.patch(`/v1/invoices/${draft.id}`, { customerName: 'Changed' }),
        await t.api.put(`/v1/invoices/${draft.id}`, invoiceBody({ customerName: 'Changed' })),
        await t.api.post(`/v1/invoices/${draft.id}`, { customerName: 'Changed' }),
      ]) {
        t.check(answer.status >= 400, `${answer.what} answered ${answer.status}`)
      }
      const read = t.ok(await t.api.get(`/v1/invoices/${draft.id}`)) as Invoice
      t.check(read.customerName === 'Conformance Customer', 'the draft was edited through the API')
    },
  },
  {
    id: 'invoices/sent-not-editable',
    title: 'A draft can be edited on the dashboard; a sent Invoice cannot',
    rules: ['invoice-states.no-api-edit'],
    needs: ['business', 'sim'],
    async run(t) {
      const draft = await createInvoice(t)
      const edited = await t.sim.request('edit the draft on the dashboard', 'PATCH', `/_sim/invoices/${draft.id}`, { customerName: 'Edited' })
      t.check(edited.status === 200, `the dashboard edit of a draft answered ${edited.status}`)
      const sent = await sendInvoice(t, draft.id)
      t.check(sent.customerName === 'Edited', 'the edit did not reach the Invoice')
      const refused = await t.sim.request('edit the sent Invoice on the dashboard', 'PATCH', `/_sim/invoices/${draft.id}`, { customerName: 'Too late' })
      t.check(refused.status >= 400, `the dashboard edit of a sent Invoice answered ${refused.status}`)
      const read = t.ok(await t.api.get(`/v1/invoices/${draft.id}`)) as Invoice
      t.check(read.customerName === 'Edited', 'the sent Invoice was edited')
    },
  },
  {
    id: 'invoices/not-emailed',
    title: 'Sending an Invoice through the API e-mails nobody',
    rules: ['service.invoices-flow'],
    needs: ['business', 'sim'],
    async run(t) {
      await sendInvoice(t, (await createInvoice(t, { customerEmail: 'ana@example.fj' })).id)
      t.check((await t.sim.emails()).length === 0, 'sending the Invoice e-mailed the customer')
    },
  },
])
