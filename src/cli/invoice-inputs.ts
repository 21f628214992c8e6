import { Args, Flags } from '@oclif/core'
import { readFile } from 'node:fs/promises'
import { ApiError } from '../errors.js'
import { fileUnreadable } from './files.js'
import type { CreateInvoiceRequest, InvoiceItem, UpdateInvoiceRequest } from '../schemas/index.js'
import { DUE_DATE_RANGE, isInDueDateRange } from '../schemas/enums.js'
import { isCalendarDate } from '../time.js'
import { parseUnitPrice } from '../money.js'
import { bulaCommand } from './launch-command.js'
import { usageError, usageParser } from './usage.js'

/** The one optional tax line: `--tax VAT:12.5`, or `--tax 12.5` for a line without a label. */
export interface TaxLine {
  label?: string
  percent: number
}

// At most 2 decimal places, as the API allows, and an optional `%` for those who write one.
const PERCENT = /^(\d+(?:\.\d{1,2})?)%?$/

/**
 * `--item "Kava bowl:2:45.50"`: description, quantity and unit price in FJD
 * dollars. Split from the right, so the description may itself contain `:`.
 * Limits (description length, quantity up to 9999) are the simulator's to check.
 */
export function parseInvoiceItem(input: string): InvoiceItem {
  const priceAt = input.lastIndexOf(':')
  const quantityAt = priceAt <= 0 ? -1 : input.lastIndexOf(':', priceAt - 1)
  if (quantityAt < 0) {
    throw new Error(`Invalid item "${input}": use description:quantity:unit price, e.g. "Kava bowl:2:45.50".`)
  }
  const quantity = input.slice(quantityAt + 1, priceAt).trim()
  // The API takes 1 or more (up to its maximum, which it names itself); 0 would pass a plain digit check.
  if (!/^0*[1-9]\d*$/.test(quantity)) throw new Error(`Invalid item "${input}": the quantity "${quantity}" must be a whole number of 1 or more.`)
  let unitPrice: number
  try {
    unitPrice = parseUnitPrice(input.slice(priceAt + 1))
  } catch (error) {
    throw new Error(`Invalid unit price in item "${input}": ${(error as Error).message}`, { cause: error })
  }
  return { description: input.slice(0, quantityAt), quantity: Number(quantity), unitPrice }
}

/** `--tax VAT:12.5`, `--tax "Service charge:10%"` or `--tax 12.5`; split at the last `:`. Up to 100 is the simulator's to check. */
export function parseTax(input: string): TaxLine {
  const separator = input.lastIndexOf(':')
  const label = separator < 0 ? undefined : input.slice(0, separator)
  const percent = PERCENT.exec(input.slice(separator + 1).trim())?.[1]
  if (percent === undefined || label?.trim() === '') {
    throw new Error(`Invalid tax "${input}": use label:percent with at most 2 decimal places (VAT:12.5, "Service charge:10"), or a bare percent.`)
  }
  return label === undefined ? { percent: Number(percent) } : { label, percent: Number(percent) }
}

/** The days `--due` takes, for its description and its refusal. */
const DUE_DAYS = `from ${DUE_DATE_RANGE.first} to ${DUE_DATE_RANGE.last}`

/**
 * `--due 2026-12-31`: a calendar date that exists, within DUE_DATE_RANGE, as
 * the API takes it; checked here too so that a day the API would refuse is a
 * usage error and nothing is sent.
 */
export function parseDueDate(input: string): string {
  const date = input.trim()
  if (!isCalendarDate(date)) {
    throw new Error(`Invalid due date "${input}": use an existing date as YYYY-MM-DD, e.g. 2026-12-31.`)
  }
  if (!isInDueDateRange(date)) {
    throw new Error(`Invalid due date "${input}": --due takes a day ${DUE_DAYS}.`)
  }
  return date
}

/** An Invoice id is a whole number; the `INV-` number a customer sees is no id. */
export function parseInvoiceId(input: string): number {
  const text = input.trim()
  const invoiceId = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(invoiceId)) {
    throw new Error(`Invalid Invoice id "${input}": give the id, a whole number such as 12 (not the INV- number).`)
  }
  return invoiceId
}

/**
 * The Invoice every `invoices` command but create and list acts on. Not
 * oclif's Args.integer: it fails with a plain Error, which exits 1 rather than
 * as a usage error.
 */
export const invoiceIdArg = Args.custom<number>({
  description: 'ID of the Invoice: a whole number, not the INV- number.',
  parse: usageParser(parseInvoiceId),
})({ required: true })

/** For the Invoice changes the API makes idempotent: create, send and void. */
export const idempotencyKeyFlag = Flags.string({
  description: 'Idempotency-Key to send (default: a new random key); reuse it to retry.',
})

/** The request-field flags shared by `invoices create` and `invoices edit`. */
export const invoiceFieldFlags = {
  customer: Flags.string({ description: 'Customer name (at most 100 characters).' }),
  item: Flags.custom<InvoiceItem>({
    description:
      'A line item "description:quantity:unit price", price in FJD dollars with at most 2 decimals; repeatable, in order. ' +
      'Split from the right, so the description may contain ":".',
    multiple: true,
    parse: usageParser(parseInvoiceItem),
  })(),
  tax: Flags.custom<TaxLine>({
    description: 'The tax line as label:percent (VAT:12.5), or a bare percent (12.5) for a line called "Tax"; percent up to 2 decimals.',
    parse: usageParser(parseTax),
  })(),
  due: Flags.custom<string>({ description: `Due date, YYYY-MM-DD (Pacific/Fiji), ${DUE_DAYS}.`, parse: usageParser(parseDueDate) })(),
  email: Flags.string({ description: 'Customer e-mail, needed to e-mail the invoice with `bula invoices email`.' }),
  'vat-number': Flags.string({ description: 'The seller\'s VAT number for this invoice only, instead of the one in settings (`bula settings set --vat-number`).' }),
}

export interface InvoiceFieldValues {
  customer?: string
  item?: InvoiceItem[]
  tax?: TaxLine
  due?: string
  email?: string
  'vat-number'?: string
}

/** The create body from the field flags, which must then name the customer, the items and the due date. */
export function createInvoiceRequest(flags: InvoiceFieldValues): CreateInvoiceRequest {
  const { customer, item, due } = flags
  if (customer === undefined || item === undefined || due === undefined) {
    const missing = (['customer', 'item', 'due'] as const).filter((flag) => flags[flag] === undefined)
    throw usageError(`Missing ${missing.map((flag) => `--${flag}`).join(', ')}: give --customer, --item and --due, or --file.`)
  }
  return {
    customerName: customer,
    dueDate: due,
    items: item,
    customerEmail: flags.email,
    taxLabel: flags.tax?.label,
    taxPercent: flags.tax?.percent,
    vatNumber: flags['vat-number'],
  }
}

export interface InvoiceClearValues {
  'clear-email'?: boolean
  'clear-tax'?: boolean
  'clear-vat-number'?: boolean
}

/** The draft edit from the flags given; refuses a command line that changes nothing. */
export function updateInvoiceRequest(flags: InvoiceFieldValues & InvoiceClearValues): UpdateInvoiceRequest {
  const changes: UpdateInvoiceRequest = {
    customerName: flags.customer,
    dueDate: flags.due,
    items: flags.item,
    customerEmail: flags['clear-email'] ? null : flags.email,
    vatNumber: flags['clear-vat-number'] ? null : flags['vat-number'],
    // --tax replaces the whole line, so a bare percent also drops the old label.
    ...(flags.tax && { taxLabel: flags.tax.label ?? null, taxPercent: flags.tax.percent }),
    // No label and 0 % is how an Invoice without a tax line looks.
    ...(flags['clear-tax'] && { taxLabel: null, taxPercent: 0 }),
  }
  if (Object.values(changes).every((value) => value === undefined)) {
    throw usageError(`Nothing to change: give at least one field or --clear-* flag (see \`${bulaCommand('invoices edit --help')}\`).`)
  }
  return changes
}

/**
 * `--file invoice.json`: a CreateInvoiceRequest as the API takes it (money in
 * cents). Only the JSON shape is checked here; the simulator validates the
 * fields and names any bad one.
 */
export async function readInvoiceFile(file: string): Promise<CreateInvoiceRequest> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw fileUnreadable(file, error, 'file')
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw new ApiError(0, 'invalid_file', `${file} is not JSON: ${(error as Error).message}.`, 'file')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(0, 'invalid_file', `${file} must hold one JSON object, a CreateInvoiceRequest.`, 'file')
  }
  return body as CreateInvoiceRequest
}
