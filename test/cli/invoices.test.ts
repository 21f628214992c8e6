import { execa } from 'execa'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DUE_DATE_RANGE, invoiceListSchema, invoiceSchema, payResponseSchema, type CreateInvoiceRequest, type Invoice } from '../../src/schemas/index.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'

const server = useServe()

const files = mkdtempSync(path.join(tmpdir(), 'bula-invoices-'))
afterAll(() => rmSync(files, { recursive: true, force: true }))

const invoices = (merchant: Pick<TestMerchant, 'env'>, args: string[]) => runCli(['invoices', ...args], { env: merchant.env })

async function invoiceCommand(merchant: TestMerchant, args: string[]): Promise<Invoice> {
  const result = await invoices(merchant, [...args, '--json'])
  expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  return invoiceSchema.parse(parseJsonOutput(result))
}

const DRAFT = ['--customer', 'Mere Vula', '--item', 'Kava bowl:2:45.50', '--due', '2026-12-31']

const create = (merchant: TestMerchant, args: string[] = DRAFT) => invoiceCommand(merchant, ['create', ...args])

// Set-up over HTTP (bula invoices create and send have tests of their own): DRAFT as a request.
const DRAFT_REQUEST = { customerName: 'Mere Vula', dueDate: '2026-12-31', items: [{ description: 'Kava bowl', quantity: 2, unitPrice: 4550 }] }

const createDraft = (merchant: TestMerchant, body: Partial<CreateInvoiceRequest> = {}) => merchant.api.createInvoice({ ...DRAFT_REQUEST, ...body })

async function send(merchant: TestMerchant, id: number): Promise<Invoice> {
  return invoiceSchema.parse(await succeed(merchant.api.post(`/v1/invoices/${id}/send`, undefined, { headers: { 'idempotency-key': randomUUID() } })))
}

describe('invoices create', () => {
  it('sends the items and tax line, and the simulator totals them', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const invoice = await create(merchant, [
      '--customer',
      'Kai Store Ltd',
      '--item',
      'Kava bowl:2:45.50',
      '--item',
      'Masi print: large, 2:1 ratio:1:0.29',
      '--tax',
      'VAT:12.5',
      '--due',
      '2026-12-31',
      '--email',
      'accounts@kaistore.fj',
      '--vat-number',
      '12-34567-8',
    ])
    expect(invoice).toMatchObject({
      status: 'draft',
      number: null,
      customerName: 'Kai Store Ltd',
      customerEmail: 'accounts@kaistore.fj',
      vatNumber: '12-34567-8',
      dueDate: '2026-12-31',
      items: [
        { description: 'Kava bowl', quantity: 2, unitPrice: 4550 },
        { description: 'Masi print: large, 2:1 ratio', quantity: 1, unitPrice: 29 },
      ],
      taxLabel: 'VAT',
      taxPercent: 12.5,
      // 9100 + 29 = 9129; 12.5 % of it is 1141.125, to the nearest cent.
      subtotal: 9129,
      tax: 1141,
      total: 10270,
    })
  })

  it('prints the invoice, its items and its money in FJD', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await invoices(merchant, ['create', ...DRAFT, '--item', 'Delivery:1:15', '--tax', '15'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^id:\s+\d+$/m)
    expect(result.stdout).toMatch(/^status:\s+draft$/m)
    expect(result.stdout).toMatch(/^customer:\s+Mere Vula$/m)
    expect(result.stdout).toMatch(/^due date:\s+31 Dec 2026$/m)
    expect(result.stdout).toMatch(new RegExp(`^url:\\s+${server().baseUrl}/i/\\S+$`, 'm'))
    expect(result.stdout).toMatch(/^DESCRIPTION\s+QTY\s+UNIT PRICE\s+AMOUNT$/m)
    expect(result.stdout).toMatch(/^Kava bowl\s+2\s+FJ\$45\.50\s+FJ\$91\.00$/m)
    expect(result.stdout).toMatch(/^Delivery\s+1\s+FJ\$15\.00\s+FJ\$15\.00$/m)
    expect(result.stdout).toMatch(/^subtotal:\s+FJ\$106\.00$/m)
    expect(result.stdout).toMatch(/^tax:\s+FJ\$15\.90 \(Tax 15%\)$/m)
    expect(result.stdout).toMatch(/^total:\s+FJ\$121\.90$/m)
  })

  it('reads the whole request from --file, and refuses field flags with it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = path.join(files, 'invoice.json')
    writeFileSync(
      file,
      JSON.stringify({
        customerName: 'File Customer',
        dueDate: '2027-01-15',
        items: [{ description: 'Tapa cloth', quantity: 3, unitPrice: 2500 }],
        taxLabel: 'VAT',
        taxPercent: 15,
      }),
    )
    const invoice = await create(merchant, ['--file', file])
    expect(invoice).toMatchObject({ customerName: 'File Customer', dueDate: '2027-01-15', subtotal: 7500, tax: 1125, total: 8625 })

    const mixed = await invoices(merchant, ['create', '--file', file, '--customer', 'Other'])
    expect(mixed.exitCode).toBe(2)
    expect(mixed.stderr).toContain('cannot also be provided when using --file')

    const missing = await invoices(merchant, ['create', '--file', path.join(files, 'none.json')])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toMatch(/^file_unreadable: Cannot read .*none\.json: no such file\. \(param: file\)$/m)
  })

  it('passes the simulator\'s refusal of a bad file field through, naming it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const file = path.join(files, 'bad.json')
    writeFileSync(file, JSON.stringify({ customerName: 'X', dueDate: '2027-01-15', items: [{ description: 'A', quantity: 0, unitPrice: 1 }] }))
    const result = await invoices(merchant, ['create', '--file', file])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^invalid_request: .* \(param: items\[0\]\.quantity\)$/m)
  })

  it('refuses a bad item or missing flags as usage errors, before sending anything', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const badPrice = await invoices(merchant, ['create', '--customer', 'X', '--item', 'Kava:2:1.234', '--due', '2026-12-31'])
    expect(badPrice.exitCode).toBe(2)
    expect(badPrice.stderr).toContain('Invalid unit price in item "Kava:2:1.234"')

    const missing = await invoices(merchant, ['create', '--item', 'Kava:2:1', '--json'])
    expect(missing.exitCode).toBe(2)
    expect(parseJsonOutput(missing)).toMatchObject({ error: { code: 'invalid_usage', message: expect.stringContaining('--customer, --due') } })
    expect(invoiceListSchema.parse(parseJsonOutput(await invoices(merchant, ['list', '--json']))).data).toEqual([])
  })

  it('refuses a due date outside the API\'s range as a usage error, for create and edit, before sending anything', async () => {
    // Nothing listens on port 9: a request would fail with connection_failed (exit 1).
    const offline = { env: { BULA_BASE_URL: 'http://127.0.0.1:9', BULA_API_KEY: 'sk_test_none' } }
    const range = `${DUE_DATE_RANGE.first} to ${DUE_DATE_RANGE.last}`
    const created = await invoices(offline, ['create', '--customer', 'X', '--item', 'Kava:2:1', '--due', '0000-01-01'])
    expect(created.exitCode, created.stderr).toBe(2)
    expect(created.stderr.replace(/\s*›\s*/g, ' ')).toContain(`Parsing --due Invalid due date "0000-01-01": --due takes a day from ${range}.`)

    const edited = await invoices(offline, ['edit', '12', '--due', '9999-12-31', '--json'])
    expect(edited.exitCode, edited.stderr).toBe(2)
    expect(parseJsonOutput(edited)).toMatchObject({ error: { code: 'invalid_usage', message: expect.stringMatching(new RegExp(`--due[^]*${range}`)) } })
  })

  it('replays a create sent again with the same --idempotency-key', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const first = await create(merchant, [...DRAFT, '--idempotency-key', 'inv-1'])
    const again = await create(merchant, [...DRAFT, '--idempotency-key', 'inv-1'])
    expect(again.id).toBe(first.id)
  })
})

describe('invoices list', () => {
  it('follows every page with --all, newest first', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const created: Invoice[] = []
    for (let index = 1; index <= 5; index++) {
      created.push(await createDraft(merchant, { customerName: `Customer ${index}`, items: [{ description: 'Item', quantity: 1, unitPrice: index * 100 }] }))
    }
    const newestFirst = created.map((invoice) => invoice.id).reverse()

    const firstPage = invoiceListSchema.parse(parseJsonOutput(await invoices(merchant, ['list', '--limit', '2', '--json'])))
    expect(firstPage.data.map((invoice) => invoice.id)).toEqual(newestFirst.slice(0, 2))
    expect(firstPage.hasMore).toBe(true)

    const human = await invoices(merchant, ['list', '--limit', '2'])
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+NUMBER\s+STATUS\s+TOTAL\s+DUE\s+CUSTOMER$/)
    expect(human.stdout).toContain(`--starting-after ${newestFirst[1]}`)

    const next = invoiceListSchema.parse(
      parseJsonOutput(await invoices(merchant, ['list', '--limit', '2', '--starting-after', String(newestFirst[1]), '--json'])),
    )
    expect(next.data.map((invoice) => invoice.id)).toEqual(newestFirst.slice(2, 4))

    const all = invoiceListSchema.parse(parseJsonOutput(await invoices(merchant, ['list', '--limit', '2', '--all', '--json'])))
    expect(all).toMatchObject({ hasMore: false })
    expect(all.data.map((invoice) => invoice.id)).toEqual(newestFirst)
  })

  it('answers business_only for an individual account', async () => {
    const individual = await signupMerchant(server().baseUrl, 'individual')
    const result = await invoices(individual, ['list'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^business_only: \S/)
    expect(result.stdout).toBe('')
  })
})

describe('invoices send, get, pdf, pay, void, open', () => {
  it('numbers the invoice on send, downloads the same PDF twice, and refuses to overwrite it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    const sent = await invoiceCommand(merchant, ['send', String(draft.id)])
    expect(sent).toMatchObject({ id: draft.id, status: 'sent', number: 'INV-0001' })
    expect(sent.pdfUrl).not.toBeNull()
    expect(await invoiceCommand(merchant, ['get', String(draft.id)])).toEqual(sent)

    const first = path.join(files, `${merchant.merchantId}-1.pdf`)
    const written = await invoices(merchant, ['pdf', String(draft.id), '--out', first])
    expect(written.exitCode, written.stderr).toBe(0)
    expect(written.stdout).toMatch(/^Wrote [\d,]+ bytes to .*-1\.pdf\.$/)
    const bytes = readFileSync(first)
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-')

    const second = path.join(files, `${merchant.merchantId}-2.pdf`)
    const json = await invoices(merchant, ['pdf', String(draft.id), '--out', second, '--json'])
    expect(parseJsonOutput(json)).toEqual({ id: draft.id, file: second, bytes: bytes.length })
    expect(readFileSync(second).equals(bytes)).toBe(true)

    writeFileSync(second, 'keep me')
    const refused = await invoices(merchant, ['pdf', String(draft.id), '--out', second])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/^file_exists: .* exists: add --force to overwrite it\. \(param: out\)$/m)
    expect(readFileSync(second, 'utf8')).toBe('keep me')
    expect((await invoices(merchant, ['pdf', String(draft.id), '--out', second, '--force'])).exitCode).toBe(0)
    expect(readFileSync(second).equals(bytes)).toBe(true)

    // A folder is named as one: --force, which the file_exists message would ask for, cannot replace it.
    const folder = await invoices(merchant, ['pdf', String(draft.id), '--out', files])
    expect(folder.exitCode).toBe(1)
    expect(folder.stderr).toContain(`file_unwritable: Cannot write ${files}: it is a folder. Give a file name. (param: out)`)
  })

  it('writes the PDF to standard output for --out -, refusing --json, which prints there too', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const { id } = await createDraft(merchant)
    await send(merchant, id)
    const file = path.join(files, `${merchant.merchantId}.pdf`)
    expect((await invoices(merchant, ['pdf', String(id), '--out', file])).exitCode).toBe(0)

    // runCli decodes stdout as text, which a PDF is not; run in the temporary folder, where a file named "-" would land.
    const piped = await execa('node', [BIN, 'invoices', 'pdf', String(id), '--out', '-'], {
      env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir() },
      cwd: files,
      encoding: 'buffer',
      stripFinalNewline: false,
      reject: false,
      stdin: 'ignore',
    })
    const [stdout, stderr] = [Buffer.from(piped.stdout), Buffer.from(piped.stderr).toString()]
    expect(piped.exitCode, stderr).toBe(0)
    expect(stdout.subarray(0, 5).toString()).toBe('%PDF-')
    expect(stdout.equals(readFileSync(file))).toBe(true)
    expect(stderr).toMatch(/^Wrote [\d,]+ bytes to standard output\.\n$/)
    expect(existsSync(path.join(files, '-'))).toBe(false)

    // Both would write to stdout: the usage error, as the --json envelope.
    const json = await invoices(merchant, ['pdf', String(id), '--out', '-', '--json'])
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json)).toEqual({ error: { code: 'invalid_usage', message: expect.stringContaining('--json cannot also be provided when using --out -') } })
  })

  it.skipIf(!existsSync('/usr/bin/script'))('refuses --out - when standard output is a terminal, which the PDF would garble', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const { id } = await createDraft(merchant)
    await send(merchant, id)
    // util-linux `script` runs the command on a pseudo-terminal, in the temporary folder where a file named "-" would land.
    const onTerminal = await execa('script', ['-qec', `node ${BIN} invoices pdf ${id} --out -`, '/dev/null'], {
      env: { ...merchant.env, BULA_CONFIG_DIR: cliConfigDir(), NO_COLOR: '1' },
      cwd: files,
      reject: false,
    })
    expect(onTerminal.exitCode).toBe(2)
    expect(onTerminal.stdout).toContain('standard output is a terminal')
    expect(onTerminal.stdout).not.toContain('%PDF')
    expect(existsSync(path.join(files, '-'))).toBe(false)
  })

  it('answers invalid_state for the PDF of a draft and a second send', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    const pdf = await invoices(merchant, ['pdf', String(draft.id), '--out', path.join(files, 'draft.pdf')])
    expect(pdf.exitCode).toBe(1)
    expect(pdf.stderr).toMatch(/^invalid_state: /)

    await send(merchant, draft.id)
    const again = await invoices(merchant, ['send', String(draft.id)])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toMatch(/^invalid_state: /)
  })

  it('pays a sent invoice, which then cannot be voided', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    await send(merchant, draft.id)
    const paid = await invoices(merchant, ['pay', String(draft.id), '--provider', 'mpaisa', '--json'])
    expect(paid.exitCode, paid.stdout).toBe(0)
    expect(payResponseSchema.parse(parseJsonOutput(paid))).toMatchObject({
      checkoutSession: { status: 'succeeded', amount: 9100, invoiceNumber: 'INV-0001' },
      paymentIntent: { provider: 'mpaisa', status: 'succeeded' },
    })
    expect(await invoiceCommand(merchant, ['get', String(draft.id)])).toMatchObject({ status: 'paid' })

    const voided = await invoices(merchant, ['void', String(draft.id)])
    expect(voided.exitCode).toBe(1)
    expect(voided.stderr).toMatch(/^invalid_state: \S/)
  })

  it('voids a sent invoice, keeping its number', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    await invoiceCommand(merchant, ['send', String(draft.id), '--idempotency-key', 'send-1'])
    const voided = await invoiceCommand(merchant, ['void', String(draft.id), '--idempotency-key', 'void-1'])
    expect(voided).toMatchObject({ status: 'void', number: 'INV-0001' })
    // A retried key returns the first result instead of a conflict.
    expect(await invoiceCommand(merchant, ['void', String(draft.id), '--idempotency-key', 'void-1'])).toEqual(voided)
  })

  it('prints the hosted URL with open --print', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    const sent = await send(merchant, draft.id)
    const result = await invoices(merchant, ['open', String(draft.id), '--print'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(sent.url)
  })

  it('answers not_found for an unknown id and refuses a non-numeric one as usage', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const missing = await invoices(merchant, ['get', '999999'])
    expect(missing.exitCode).toBe(1)
    expect(missing.stderr).toMatch(/^not_found: /)
    const byNumber = await invoices(merchant, ['get', 'INV-0001'])
    expect(byNumber.exitCode).toBe(2)
    expect(byNumber.stderr).toContain('Invalid Invoice id "INV-0001"')
  })
})

describe('invoices edit and email', () => {
  it('edits a draft: replaces items, swaps the tax line, clears fields', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant, { taxLabel: 'VAT', taxPercent: 15, customerEmail: 'mere@example.fj', vatNumber: '123' })
    const edited = await invoiceCommand(merchant, [
      'edit',
      String(draft.id),
      '--item',
      'Tanoa:1:180',
      '--item',
      'Bilo:4:12.25',
      '--tax',
      '10',
      '--due',
      '2027-01-31',
      '--clear-vat-number',
    ])
    expect(edited).toMatchObject({
      id: draft.id,
      status: 'draft',
      customerName: 'Mere Vula',
      customerEmail: 'mere@example.fj',
      items: [
        { description: 'Tanoa', quantity: 1, unitPrice: 18000 },
        { description: 'Bilo', quantity: 4, unitPrice: 1225 },
      ],
      // A bare percent is a tax line without a label of its own: "Tax" (spec: taxLabel is null only without a tax line).
      taxLabel: 'Tax',
      taxPercent: 10,
      vatNumber: null,
      dueDate: '2027-01-31',
      subtotal: 22900,
      tax: 2290,
      total: 25190,
    })

    const cleared = await invoiceCommand(merchant, ['edit', String(draft.id), '--clear-tax', '--clear-email'])
    expect(cleared).toMatchObject({ taxLabel: null, taxPercent: 0, tax: 0, total: 22900, customerEmail: null })

    const nothing = await invoices(merchant, ['edit', String(draft.id)])
    expect(nothing.exitCode).toBe(2)
    expect(nothing.stderr).toContain('Nothing to change')
    expect((await invoices(merchant, ['edit', String(draft.id), '--email', 'a@b.fj', '--clear-email'])).exitCode).toBe(2)

    await send(merchant, draft.id)
    const sent = await invoices(merchant, ['edit', String(draft.id), '--customer', 'Too late'])
    expect(sent.exitCode).toBe(1)
    expect(sent.stderr).toMatch(/^invalid_state: /)
  })

  it('e-mails a sent invoice into the outbox, branded with the display name', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    expect((await runCli(['settings', 'set', '--display-name', 'Kai Store'], { env: merchant.env })).exitCode).toBe(0)
    const draft = await createDraft(merchant, { customerEmail: 'mere@example.fj' })
    await send(merchant, draft.id)

    const result = await invoices(merchant, ['email', String(draft.id)])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^email:\s+em_\S+$/m)
    expect(result.stdout).toMatch(/^to:\s+mere@example\.fj$/m)
    expect(result.stdout).toMatch(/^subject:\s+Invoice INV-0001 from Kai Store$/m)
    expect(result.stdout).toMatch(/^attachments:\s+INV-0001\.pdf \([\d,]+ bytes\)$/m)

    const json = parseJsonOutput<{ email: { to: string; kind: string; relatedId: string } }>(
      await invoices(merchant, ['email', String(draft.id), '--json']),
    )
    expect(json.email).toMatchObject({ to: 'mere@example.fj', kind: 'invoice', relatedId: String(draft.id) })
  })

  it('refuses to e-mail an invoice without a customer e-mail', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const draft = await createDraft(merchant)
    await send(merchant, draft.id)
    const result = await invoices(merchant, ['email', String(draft.id)])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^invalid_request: .* \(param: customerEmail\)$/m)
  })
})
