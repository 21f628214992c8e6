import { beforeAll, describe, expect, it } from 'vitest'
import { DashboardAgent, csrfOf, errorFlashOf, formOf, hiddenFieldsOf, okFlashOf, submitForm, type DashboardPage } from '../helpers/dashboard.js'
import { client, signupMerchant, unlockLive, useTestServer } from '../helpers/http.js'
import { SAMPLE_INVOICE, draftInvoice, idempotent, sentInvoice } from '../helpers/invoices.js'
import { ManualWallClock } from '../helpers/manual-wall-clock.js'

let base: string
// 2026-11-22 10:00 UTC: SAMPLE_INVOICE (due 2026-12-15) is not yet overdue.
const START = Date.UTC(2026, 10, 22, 10, 0, 0)

const server = useTestServer({ wall: new ManualWallClock(START) })
beforeAll(async () => {
  base = server().baseUrl
})

const SCRIPT_NAME = '<script>alert(1)</script> & Co'
const ESCAPED_NAME = '&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'

const NEW_DRAFT = {
  customerName: 'Nadi Bakery',
  customerEmail: 'orders@nadibakery.example',
  dueDate: '2026-12-31',
  'item-0-description': 'Bread rolls',
  'item-0-quantity': '12',
  'item-0-unitPrice': '1.50',
  'item-1-description': 'Cake',
  'item-1-quantity': '1',
  'item-1-unitPrice': '45.5',
  'item-2-description': '',
  'item-2-quantity': '',
  'item-2-unitPrice': '',
  taxLabel: 'VAT',
  taxPercent: '15',
  vatNumber: '',
}

/** A dashboard session cookie for `key`, signed in the way `bula dashboard` does. */
async function sessionCookie(key: string): Promise<string> {
  const link = await client(base, key).post('/_sim/dashboard/login-links')
  const landed = await fetch(link.body.url as string, { redirect: 'manual' })
  const cookie = landed.headers.getSetCookie().find((line) => line.startsWith('bula_dashboard='))
  if (!cookie) throw new Error('the login link set no session cookie')
  return cookie.split(';')[0]!
}

async function businessAgent() {
  const { api, key, draft, send } = await draftInvoice(base)
  return { api, key, draft, send, agent: await DashboardAgent.signIn(base, key) }
}

describe('Invoices list', () => {
  it('lists newest first with number, customer, total, status, overdue and due date, and pages with starting_after', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    const ids: number[] = []
    for (let n = 0; n < 22; n++) {
      const created = await api.post('/v1/invoices', { ...SAMPLE_INVOICE, customerName: `Customer ${n}` }, idempotent())
      ids.push(created.body.id)
    }
    const overdue = await api.post('/v1/invoices', { ...SAMPLE_INVOICE, customerName: 'Late Payer', dueDate: '2026-11-01' }, idempotent())
    const sent = await api.post(`/v1/invoices/${overdue.body.id}/send`, undefined, idempotent())
    ids.push(overdue.body.id)
    const agent = await DashboardAgent.signIn(base, keys.secret)

    const first = await agent.get('/dashboard/invoices')
    expect(first.status).toBe(200)
    const rowsOf = (page: DashboardPage) => [...page.html.matchAll(/<a href="\/dashboard\/invoices\/(\d+)">/g)].map((m) => Number(m[1]))
    expect(rowsOf(first)).toEqual(ids.slice(-20).reverse())
    expect(first.html).toContain(`>${sent.body.number}</a></td><td><span class="free-text">Late Payer</span></td><td>FJ$1,053.00</td><td><span class="badge badge-ok">sent</span></td>`)
    expect(first.html).toContain('<span class="badge badge-bad">overdue</span></td><td>1 Nov 2026</td><td>22 Nov 2026, 22:00 FJT (10:00 UTC)</td>')
    expect(first.html).toContain(`>Draft #${ids[21]}</a></td><td><span class="free-text">Customer 21</span></td>`)
    expect(first.html).toContain('Invoices of test mode')
    const next = new RegExp(`href="(/dashboard/invoices\\?starting_after=${ids[3]})">Next page`).exec(first.html)
    expect(next).not.toBeNull()

    const second = await agent.get(next![1]!)
    expect(second.status).toBe(200)
    expect(rowsOf(second)).toEqual(ids.slice(0, 3).reverse())
    expect(second.html).toContain('First page')
    expect(second.html).not.toContain('Next page')

    const onlySent = await agent.get('/dashboard/invoices?status=sent')
    expect(rowsOf(onlySent)).toEqual([overdue.body.id])
    expect(onlySent.html).toContain('<option value="sent" selected>')
    const noPaid = await agent.get('/dashboard/invoices?status=paid')
    expect(noPaid.html).toContain('No paid Invoices in test mode.')

    const badCursor = await agent.get('/dashboard/invoices?starting_after=999999')
    expect(badCursor.status).toBe(400)
    expect(errorFlashOf(badCursor)).toContain('starting_after is not an Invoice of this merchant and mode.')
  })
})

describe('New draft form', () => {
  it('creates a draft through the API service; the same form posted twice makes one draft', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const list = await agent.get('/dashboard/invoices')
    expect(list.html).toContain('No Invoices in test mode yet.')
    const form: Record<string, string> = { ...hiddenFieldsOf(list, '/dashboard/invoices'), ...NEW_DRAFT }
    expect(form.idempotencyKey).toMatch(/^dash_/)

    const created = await agent.post('/dashboard/invoices', form)
    expect(created.status).toBe(303)
    const [invoice] = (await api.get('/v1/invoices')).body.data
    expect(created.location).toBe(`/dashboard/invoices/${invoice.id}`)
    expect(invoice).toMatchObject({
      status: 'draft',
      customerName: 'Nadi Bakery',
      customerEmail: 'orders@nadibakery.example',
      dueDate: '2026-12-31',
      items: [
        { description: 'Bread rolls', quantity: 12, unitPrice: 150 },
        { description: 'Cake', quantity: 1, unitPrice: 4550 },
      ],
      taxLabel: 'VAT',
      taxPercent: 15,
      vatNumber: null,
      subtotal: 6350,
      total: 7303,
    })
    expect(okFlashOf(await agent.follow(created))).toContain(`Draft #${invoice.id} created for Nadi Bakery: FJ$73.03.`)

    const again = await agent.post('/dashboard/invoices', form)
    expect(again.location).toBe(`/dashboard/invoices/${invoice.id}`)
    expect(okFlashOf(await agent.follow(again))).toContain('This form was already submitted')
    expect((await api.get('/v1/invoices')).body.data).toHaveLength(1)

    // A fresh page is a fresh form: a second draft.
    const other = await submitForm(agent, '/dashboard/invoices', '/dashboard/invoices', NEW_DRAFT)
    expect(other.status).toBe(303)
    expect((await api.get('/v1/invoices')).body.data).toHaveLength(2)
  })

  it('shows what is wrong as a flash naming the field, and makes nothing', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const cases: [Record<string, string>, string, string][] = [
      [{ 'item-1-unitPrice': '45.555' }, 'Item row 2: Invalid unit price "45.555"', 'Field: items[1].unitPrice'],
      [{ 'item-0-quantity': 'two' }, 'Item row 1: the quantity must be a whole number.', 'Field: items[0].quantity'],
      [{ dueDate: '2026-02-30' }, 'Invalid `dueDate`', 'Field: dueDate'],
      [{ dueDate: '0000-01-01' }, 'Invalid `dueDate`: must be a day from 2000-01-01 to 2199-12-31.', 'Field: dueDate'],
      [{ taxPercent: '' }, 'taxPercent is required with taxLabel', 'Field: taxPercent'],
      // As the unit price is: Number() took these.
      [{ taxPercent: '1e1' }, 'The tax percent must be a number like 15 or 12.5.', 'Field: taxPercent'],
      [{ taxPercent: '0x10' }, 'The tax percent must be a number like 15 or 12.5.', 'Field: taxPercent'],
      [{ 'item-0-quantity': '3000', 'item-0-unitPrice': '2.00' }, 'must be under FJ$5,000.00', 'Field: items'],
    ]
    for (const [change, message, field] of cases) {
      const refused = await submitForm(agent, '/dashboard/invoices', '/dashboard/invoices', { ...NEW_DRAFT, ...change })
      expect(refused.location).toBe('/dashboard/invoices')
      const flash = errorFlashOf(await agent.follow(refused))
      expect(flash, message).toContain(message.replace(/"/g, '&quot;'))
      expect(flash).toContain(field)
    }
    const noItems = Object.fromEntries(Object.entries(NEW_DRAFT).map(([name, value]) => [name, name.startsWith('item-') ? '' : value]))
    const empty = await submitForm(agent, '/dashboard/invoices', '/dashboard/invoices', noItems)
    expect(errorFlashOf(await agent.follow(empty))).toContain('Field: items')
    expect((await api.get('/v1/invoices')).body.data).toEqual([])
  })

  // The form reader makes a name sent twice a list, which the page used to read as an empty field: `Invalid unit price ""`.
  it('refuses a field sent twice with a 400 page naming it, and makes nothing', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const page = await agent.get('/dashboard/invoices')
    const fields = Object.entries({ ...hiddenFieldsOf(page, '/dashboard/invoices'), ...NEW_DRAFT })
    const refused = await agent.post('/dashboard/invoices', [...fields, ['item-0-unitPrice', '2.00']])
    expect(refused.status).toBe(400)
    expect(refused.html).toContain('Invalid `item-0-unitPrice`: give it once, not 2 times.')
    expect(refused.html).toContain('<code>invalid_request</code>')
    expect((await api.get('/v1/invoices')).body.data).toEqual([])
    const made = await agent.post('/dashboard/invoices', fields)
    expect(made.status).toBe(303)
    expect((await api.get('/v1/invoices')).body.data).toHaveLength(1)
  })

  // Found by an adversarial pass: the form reader dropped these without a word, as docs/security.md forbids for a body.
  it('refuses a field named __proto__ with a 400 page naming it, and makes nothing', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const api = client(base, keys.secret)
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const fields = Object.entries({ ...hiddenFieldsOf(await agent.get('/dashboard/invoices'), '/dashboard/invoices'), ...NEW_DRAFT })
    for (const name of ['__proto__', '__proto__[admin]']) {
      const refused = await agent.post('/dashboard/invoices', [...fields, [name, 'x']])
      expect(refused.status, name).toBe(400)
      expect(refused.html).toContain(`\`${name}\`: the name \`__proto__\` is not allowed for a form field`)
      expect(refused.html).toContain('<code>invalid_request</code>')
    }
    expect((await api.get('/v1/invoices')).body.data).toEqual([])
    // The one multipart form, verification's, the same.
    const multipart = new FormData()
    multipart.set('_csrf', csrfOf((await agent.get('/dashboard/settings')).html))
    multipart.append('tin', '123-456-789')
    multipart.append('__proto__', 'x')
    const refusedUpload = await agent.postMultipart('/dashboard/settings/verification', multipart)
    expect(refusedUpload.status).toBe(400)
    expect(refusedUpload.html).toContain('the name `__proto__` is not allowed for a form field')
    expect((await api.get('/_sim/verification')).body.verification.status).toBe('unverified')
  })
})

describe('a refused invoice form comes back with what was typed (issue 14)', () => {
  it('the new-draft form keeps every field and item row, escaped, once', async () => {
    const { keys } = await signupMerchant(base, 'business')
    const agent = await DashboardAgent.signIn(base, keys.secret)
    const typed = { ...NEW_DRAFT, customerName: 'Nadi "Best" Bakery', 'item-1-quantity': 'two', vatNumber: 'VAT 77' }
    const before = hiddenFieldsOf(await agent.get('/dashboard/invoices'), '/dashboard/invoices')
    const refused = await agent.follow(await agent.post('/dashboard/invoices', { ...before, ...typed }))
    expect(errorFlashOf(refused)).toContain('Field: items[1].quantity')
    const form = formOf(refused, '/dashboard/invoices')
    for (const expected of [
      'name="customerName" value="Nadi &quot;Best&quot; Bakery"',
      'name="customerEmail" value="orders@nadibakery.example"',
      // The browser's date picker offers the API's range.
      'name="dueDate" value="2026-12-31" type="date" min="2000-01-01" max="2199-12-31"',
      'name="item-0-description" value="Bread rolls"',
      'name="item-0-unitPrice" value="1.50"',
      'name="item-1-quantity" value="two"',
      'name="item-1-unitPrice" value="45.5"',
      'name="taxLabel" value="VAT"',
      'name="taxPercent" value="15"',
      'name="vatNumber" value="VAT 77"',
    ]) {
      expect(form, expected).toContain(expected)
    }
    // A fresh key: the refused request stored no result under the old one.
    expect(hiddenFieldsOf(refused, '/dashboard/invoices').idempotencyKey).not.toBe(before.idempotencyKey)
    expect(formOf(await agent.get('/dashboard/invoices'), '/dashboard/invoices')).toContain('name="customerName" value=""')
  })

  it('the edit form keeps what was typed, and only that draft\'s form gets it', async () => {
    const { agent, api, draft } = await businessAgent()
    const other = await api.post('/v1/invoices', { ...SAMPLE_INVOICE, customerName: 'Other Club' }, idempotent())
    const path = `/dashboard/invoices/${draft.id}`
    const refused = await agent.follow(
      await submitForm(agent, path, `${path}/edit`, {
        customerName: 'Lautoka Surf Club Ltd',
        dueDate: '2026-02-30',
        'item-0-description': 'Kava bowl, large',
        'item-0-quantity': '4',
        'item-0-unitPrice': '460',
        taxLabel: 'VAT',
        taxPercent: '12.5',
      }),
    )
    expect(errorFlashOf(refused)).toContain('Field: dueDate')
    const form = formOf(refused, `${path}/edit`)
    expect(form).toContain('name="customerName" value="Lautoka Surf Club Ltd"')
    expect(form).toContain('name="dueDate" value="2026-02-30"')
    expect(form).toContain('name="item-0-description" value="Kava bowl, large"')
    expect(form).toContain('name="item-0-quantity" value="4"')
    expect(form).toContain('name="item-0-unitPrice" value="460"')
    expect((await api.get(`/v1/invoices/${draft.id}`)).body.customerName).toBe('Lautoka Surf Club')

    await submitForm(agent, path, `${path}/edit`, { dueDate: 'soon' })
    const otherPage = await agent.get(`/dashboard/invoices/${other.body.id}`)
    expect(formOf(otherPage, `/dashboard/invoices/${other.body.id}/edit`)).toContain('name="customerName" value="Other Club"')
  })
})

describe('Invoice page', () => {
  it('shows a draft in full, with the edit form filled in and a Send button, but no PDF', async () => {
    const { agent, draft } = await businessAgent()
    const page = await agent.get(`/dashboard/invoices/${draft.id}`)
    expect(page.status).toBe(200)
    for (const expected of [
      `Invoice Draft #${draft.id}`,
      '<span class="badge badge-wait">draft</span>',
      'Not yet: assigned when sent',
      'Lautoka Surf Club',
      'accounts@surfclub.example',
      'FJ-VAT-50-12345',
      '<td><span class="free-text">Kava bowl (tanoa), hand carved</span></td><td>2</td><td>FJ$450.50</td><td>FJ$901.00</td>',
      'FJ$936.00',
      'FJ$117.00',
      'data-testid="invoice-total">FJ$1,053.00<',
      '15 Dec 2026',
      `action="/dashboard/invoices/${draft.id}/edit"`,
      `action="/dashboard/invoices/${draft.id}/send"`,
      'name="item-1-unitPrice" value="35.00"',
      'name="item-0-description" value="Kava bowl (tanoa), hand carved"',
      'name="taxPercent" value="12.5"',
    ]) {
      expect(page.html, expected).toContain(expected)
    }
    expect(page.html).not.toContain('<iframe')
    expect(page.html).not.toContain('/void"')

    const pdf = await agent.get(`/dashboard/invoices/${draft.id}/pdf`)
    expect(pdf.status).toBe(409)
    expect(pdf.html).toContain('still a draft; send it first.')
  })

  it('edits a draft: a changed item changes the total the API reports', async () => {
    const { agent, api, draft } = await businessAgent()
    const path = `/dashboard/invoices/${draft.id}`
    const edited = await submitForm(agent, path, `${path}/edit`, {
      customerName: 'Lautoka Surf Club',
      customerEmail: '',
      dueDate: '2026-12-20',
      'item-0-description': 'Kava bowl (tanoa), hand carved',
      'item-0-quantity': '3',
      'item-0-unitPrice': '450.50',
      'item-1-description': '',
      'item-1-quantity': '',
      'item-1-unitPrice': '',
      taxLabel: '',
      taxPercent: '',
      vatNumber: 'FJ-VAT-50-12345',
    })
    expect(edited.location).toBe(path)
    expect(okFlashOf(await agent.follow(edited))).toContain(`Draft #${draft.id} saved: 1 item(s), total FJ$1,351.50.`)
    const after = (await api.get(`/v1/invoices/${draft.id}`)).body
    expect(after).toMatchObject({
      items: [{ description: 'Kava bowl (tanoa), hand carved', quantity: 3, unitPrice: 45050 }],
      customerEmail: null,
      taxLabel: null,
      taxPercent: 0,
      dueDate: '2026-12-20',
      total: 135150,
    })
    expect(after.total).not.toBe(draft.total)
  })

  it('sends a draft: it gets a number; the same form posted again uses no second number', async () => {
    const { agent, api, draft } = await businessAgent()
    const path = `/dashboard/invoices/${draft.id}`
    const page = await agent.get(path)
    const form = hiddenFieldsOf(page, `${path}/send`)
    const sent = await agent.post(`${path}/send`, form)
    expect(sent.location).toBe(path)
    const invoice = (await api.get(`/v1/invoices/${draft.id}`)).body
    expect(invoice.status).toBe('sent')
    expect(invoice.number).toBe('INV-0001')
    const shown = await agent.follow(sent)
    expect(okFlashOf(shown)).toContain('Sent as INV-0001.')
    expect(shown.html).toContain('<h1>Invoice INV-0001</h1>')
    expect(shown.html).toContain(`<a href="${invoice.url}">`)
    expect(shown.html).toContain(`<iframe class="pdf-preview" src="${path}/pdf" title="PDF of invoice INV-0001">`)
    expect(shown.html).toContain(`href="${path}/pdf" download="INV-0001.pdf"`)
    expect(shown.html).toContain(`action="${path}/void"`)
    expect(shown.html).toContain('data-confirm="Void invoice INV-0001? The customer can no longer pay it."')
    expect(shown.html).not.toContain(`action="${path}/edit"`)

    expect((await agent.post(`${path}/send`, form)).location).toBe(path)
    expect((await api.get('/_sim/settings')).body.invoiceNextNumber).toBe(2)
    expect((await api.get(`/v1/invoices/${draft.id}`)).body.number).toBe('INV-0001')
  })

  it('voids a sent invoice; voiding again is a flash', async () => {
    const { agent, api, draft, send } = await businessAgent()
    await send()
    const path = `/dashboard/invoices/${draft.id}`
    const page = await agent.get(path)
    const form = hiddenFieldsOf(page, `${path}/void`)
    const voided = await agent.post(`${path}/void`, form)
    expect(voided.location).toBe(path)
    expect((await api.get(`/v1/invoices/${draft.id}`)).body.status).toBe('void')
    const shown = await agent.follow(voided)
    expect(okFlashOf(shown)).toContain('Voided INV-0001')
    expect(shown.html).toContain('<span class="badge badge-bad">void</span>')
    expect(shown.html).not.toContain(`action="${path}/void"`)

    // A stale page's Send form: the service refuses, and the page says why.
    const refused = await agent.post(`${path}/send`, { ...form, idempotencyKey: 'dash_another-key-0123456789' })
    expect(refused.location).toBe(path)
    expect(errorFlashOf(await agent.follow(refused))).toContain(`Invoice ${draft.id} has been voided and cannot be sent.`)
  })

  it('e-mails a sent invoice into the outbox; without an address it says so', async () => {
    const { agent, api, draft, send } = await businessAgent()
    const invoice = await send()
    const path = `/dashboard/invoices/${draft.id}`
    const emailed = await submitForm(agent, path, `${path}/email`)
    expect(emailed.location).toBe(path)
    expect(okFlashOf(await agent.follow(emailed))).toContain('E-mailed to accounts@surfclub.example')
    const emails = (await api.get('/_sim/emails')).body.data
    expect(emails).toHaveLength(1)
    expect(emails[0]).toMatchObject({ kind: 'invoice', to: 'accounts@surfclub.example', relatedId: String(draft.id), subject: `Tax Invoice ${invoice.number} from Kava Kitchen Ltd` })

    const { customerEmail: _omit, ...withoutEmail } = SAMPLE_INVOICE
    const bare = await api.post('/v1/invoices', withoutEmail, idempotent())
    await api.post(`/v1/invoices/${bare.body.id}/send`, undefined, idempotent())
    const barePath = `/dashboard/invoices/${bare.body.id}`
    const refused = await submitForm(agent, barePath, `${barePath}/email`)
    const flash = errorFlashOf(await agent.follow(refused))
    expect(flash).toContain('The Invoice has no customerEmail to send it to, and a sent Invoice cannot be edited: share its url with the customer, or void it and create another with a customerEmail (`bula invoices create --email`).')
    expect(flash).toContain('Field: customerEmail')
  })

  it('drops bidi controls from the names in an invoice e-mail, whose subject and text cannot isolate them', async () => {
    const { agent, api } = await businessAgent()
    await api.patch('/_sim/settings', { displayName: 'Kava \u202eKitchen' })
    const draft = (await api.post('/v1/invoices', { ...SAMPLE_INVOICE, customerName: 'Surf \u2066Club\u2069' }, idempotent())).body
    const invoice = (await api.post(`/v1/invoices/${draft.id}/send`, undefined, idempotent())).body
    const path = `/dashboard/invoices/${draft.id}`
    await submitForm(agent, path, `${path}/email`)
    const [email] = (await api.get('/_sim/emails')).body.data
    expect(email.subject).toBe(`Tax Invoice ${invoice.number} from Kava Kitchen`)
    for (const part of [email.subject, email.html, email.text]) expect(part).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
    expect(email.text).toContain('Bula Surf Club,')
    // The API keeps what it was sent.
    expect((await api.get(`/v1/invoices/${draft.id}`)).body.customerName).toBe('Surf \u2066Club\u2069')
  })

  it('serves an e-mail\'s attachment from the Outbox, only to its merchant and mode (issue 14)', async () => {
    const { agent, api, key, draft, send } = await businessAgent()
    const invoice = await send()
    const path = `/dashboard/invoices/${draft.id}`
    await submitForm(agent, path, `${path}/email`)
    const [email] = (await api.get('/_sim/emails')).body.data
    const page = await agent.get(`/dashboard/outbox/${email.id}`)
    const href = `/dashboard/outbox/${email.id}/attachments/0`
    expect(page.html).toContain(`<a href="${href}" download="${invoice.number}.pdf">${invoice.number}.pdf</a>`)

    const file = await agent.get(href)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('application/pdf')
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${invoice.number}.pdf"`)
    expect(file.headers.get('x-content-type-options')).toBe('nosniff')
    const pdf = await fetch(invoice.pdfUrl, { headers: { authorization: `Bearer ${key}` } })
    const bytes = Buffer.from(await (await fetch(`${base}${href}`, { headers: { cookie: await sessionCookie(key) } })).arrayBuffer())
    expect(bytes.equals(Buffer.from(await pdf.arrayBuffer()))).toBe(true)

    for (const missing of [`/dashboard/outbox/${email.id}/attachments/1`, `/dashboard/outbox/${email.id}/attachments/x`, '/dashboard/outbox/em_nothere/attachments/0']) {
      expect((await agent.get(missing)).status, missing).toBe(404)
    }
    const stranger = await DashboardAgent.signIn(base, (await signupMerchant(base, 'business')).keys.secret)
    const foreign = await stranger.get(href)
    expect(foreign.status).toBe(404)
    expect(foreign.headers.get('content-type')).toMatch(/^text\/html/)
    const live = await DashboardAgent.signIn(base, (await unlockLive(base, key)).secret)
    expect((await live.get(href)).status).toBe(404)
  })

  it('marks an invoice paid as the customer would, linking the Checkout Session that paid it', async () => {
    const { agent, api, draft, send } = await businessAgent()
    await send()
    const path = `/dashboard/invoices/${draft.id}`
    const paid = await submitForm(agent, path, `${path}/pay`)
    expect(paid.location).toBe(path)
    const invoice = (await api.get(`/v1/invoices/${draft.id}`)).body
    expect(invoice.status).toBe('paid')
    const shown = await agent.follow(paid)
    expect(shown.html).toContain('<span class="badge badge-ok">paid</span>')
    const session = /<a href="\/dashboard\/sessions\/(cs_[^"]+)">/.exec(shown.html)?.[1]
    expect(session).toBeDefined()
    expect((await api.get(`/v1/checkout-sessions/${session}`)).body.invoiceNumber).toBe(invoice.number)
    expect(shown.html).not.toContain('Not paid')
  })

  it('serves the PDF inline with the same bytes as the API, framable by the dashboard only', async () => {
    const { key, invoice } = await sentInvoice(base)
    const apiPdf = await fetch(`${base}/v1/invoices/${invoice.id}/pdf`, { headers: { authorization: `Bearer ${key}` } })
    expect(apiPdf.status).toBe(200)
    // DashboardAgent reads bodies as text; the bytes need the session cookie on a plain fetch.
    const response = await fetch(`${base}/dashboard/invoices/${invoice.id}/pdf`, { headers: { cookie: await sessionCookie(key) } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/pdf')
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="${invoice.number}.pdf"`)
    expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'self'")
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(await apiPdf.arrayBuffer()))).toBe(true)
  })
})

// Every dashboard page refused a query parameter it does not read, each one given twice too; these files took any.
describe('the PDF, an attachment and an e-mail\'s frame take no query', () => {
  it('answers an unknown parameter with a 400 page naming it, and serves the file without one', async () => {
    const { agent, api, draft, send } = await businessAgent()
    await send()
    const path = `/dashboard/invoices/${draft.id}`
    await submitForm(agent, path, `${path}/email`)
    const [email] = (await api.get('/_sim/emails')).body.data
    for (const file of [`${path}/pdf`, `/dashboard/outbox/${email.id}/attachments/0`, `/dashboard/outbox/${email.id}/html`]) {
      const refused = await agent.get(`${file}?download=1`)
      expect(refused.status, file).toBe(400)
      expect(refused.headers.get('content-type'), file).toMatch(/^text\/html/)
      expect(refused.html, file).toContain('Unknown query parameter `download`.')
      // The error page is the dashboard's own, not sandboxed or framed as the file would be.
      expect(refused.headers.get('content-disposition'), file).toBeNull()
      expect((await agent.get(file)).status, file).toBe(200)
    }
  })
})

describe('Invoices: who may see what', () => {
  it('explains to an individual merchant that invoices are for Business accounts, on every page and action', async () => {
    const { keys } = await signupMerchant(base, 'individual')
    const agent = await DashboardAgent.signIn(base, keys.secret)
    for (const path of ['/dashboard/invoices', '/dashboard/invoices/1']) {
      const page = await agent.get(path)
      expect(page.status).toBe(403)
      expect(page.html).toContain('Invoices need a Business account.')
      expect(page.html).toContain('An Individual account takes payments with Checkout Sessions.')
      expect(page.html).not.toContain('action="/dashboard/invoices"')
    }
    const overview = await agent.get('/dashboard')
    const refused = await agent.post('/dashboard/invoices', { ...hiddenFieldsOf(overview, '/dashboard/sign-out'), _back: '/dashboard/invoices', ...NEW_DRAFT })
    expect(refused.location).toBe('/dashboard/invoices')
    expect(errorFlashOf(await agent.follow(refused))).toContain('Invoices need a Business account.')
    expect((await agent.get('/dashboard/invoices/1/pdf')).status).toBe(403)
    // The tier before the query, as on /v1.
    expect((await agent.get('/dashboard/invoices/1/pdf?x=1')).status).toBe(403)
  })

  // /v1 checks the tier before the query: GET /v1/invoices?x=1 is 403 business_only for an individual, not 400.
  it('tells an individual merchant about Business accounts before judging the query, as /v1 does', async () => {
    const { keys } = await signupMerchant(base, 'individual')
    const v1 = await client(base, keys.secret).get('/v1/invoices?x=1')
    expect([v1.status, v1.body.error.code]).toEqual([403, 'business_only'])
    const agent = await DashboardAgent.signIn(base, keys.secret)
    for (const path of ['/dashboard/invoices?x=1', '/dashboard/invoices?status=draft&status=paid', '/dashboard/invoices/1?x=1']) {
      const page = await agent.get(path)
      expect(page.status, path).toBe(403)
      expect(page.html, path).toContain('Invoices need a Business account.')
    }
  })

  it("gives 404 for another merchant's invoice, on its page, its PDF and its actions", async () => {
    const { draft } = await businessAgent()
    const other = await sentInvoice(base)
    const { agent } = await businessAgent()
    for (const id of [draft.id, other.invoice.id]) {
      const page = await agent.get(`/dashboard/invoices/${id}`)
      expect(page.status).toBe(404)
      expect(page.html).toContain('No such Invoice for this merchant and mode.')
      expect((await agent.get(`/dashboard/invoices/${id}/pdf`)).status).toBe(404)
    }
    const list = await agent.get('/dashboard/invoices')
    const refused = await agent.post(`/dashboard/invoices/${other.invoice.id}/void`, hiddenFieldsOf(list, '/dashboard/invoices'))
    expect(errorFlashOf(await agent.follow(refused))).toContain('No such Invoice for this merchant and mode.')
    expect((await other.api.get(`/v1/invoices/${other.invoice.id}`)).body.status).toBe('sent')
  })

  it('escapes a customer name with <script> on the list and the page', async () => {
    const { invoice, key } = await sentInvoice(base, { ...SAMPLE_INVOICE, customerName: SCRIPT_NAME })
    const agent = await DashboardAgent.signIn(base, key)
    for (const path of ['/dashboard/invoices', `/dashboard/invoices/${invoice.id}`]) {
      const page = await agent.get(path)
      expect(page.html).toContain(ESCAPED_NAME)
      expect(page.html).not.toContain('<script>alert(1)')
    }
  })
})
