import { Errors } from '@oclif/core'
import { describe, expect, it } from 'vitest'
import {
  createInvoiceRequest,
  parseDueDate,
  parseInvoiceId,
  parseInvoiceItem,
  parseTax,
  updateInvoiceRequest,
} from '../../src/cli/invoice-inputs.js'
import { DUE_DATE_RANGE, dueDateSchema } from '../../src/schemas/index.js'

describe('--item', () => {
  it.each([
    ['Kava bowl:2:45.50', { description: 'Kava bowl', quantity: 2, unitPrice: 4550 }],
    ['Delivery:1:15', { description: 'Delivery', quantity: 1, unitPrice: 1500 }],
    // Exact where floats are not: 0.29 * 100 is 28.999999999999996.
    ['Sticker:9999:0.29', { description: 'Sticker', quantity: 9999, unitPrice: 29 }],
    ['Free sample:1:0', { description: 'Free sample', quantity: 1, unitPrice: 0 }],
    // Split from the right, so the description keeps its own colons.
    ['Masi print: large, 2:1 ratio:3:120.5', { description: 'Masi print: large, 2:1 ratio', quantity: 3, unitPrice: 12050 }],
    ['Tanoa: 10:00 delivery: 2 :1: 180.00 ', { description: 'Tanoa: 10:00 delivery: 2 ', quantity: 1, unitPrice: 18000 }],
  ])('reads %j', (input, item) => {
    expect(parseInvoiceItem(input)).toEqual(item)
  })

  it.each(['Kava bowl', 'Kava bowl:45.50', ':45.50', 'Kava:2'])('refuses %j without three parts', (input) => {
    expect(() => parseInvoiceItem(input)).toThrow(`Invalid item "${input}": use description:quantity:unit price`)
  })

  it.each(['Kava:two:4', 'Kava:1.5:4', 'Kava:-1:4', 'Kava::4', 'Kava:0:4', 'Kava:00:4'])('refuses %j, whose quantity is not a whole number of 1 or more', (input) => {
    expect(() => parseInvoiceItem(input)).toThrow(/the quantity ".*" must be a whole number of 1 or more/)
  })

  it.each(['Kava:2:45.505', 'Kava:2:FJD 5', 'Kava:2:'])('refuses %j with the amount rule', (input) => {
    expect(() => parseInvoiceItem(input)).toThrow(
      new RegExp(`^Invalid unit price in item ".*": Invalid unit price ".*": give dollars with at most 2 decimal places`),
    )
  })

  it('refuses a negative unit price saying so', () => {
    expect(() => parseInvoiceItem('Kava:2:-1')).toThrow('Invalid unit price in item "Kava:2:-1": Invalid unit price "-1": an amount cannot be negative, e.g. 15, 15.5 or 15.00.')
  })
})

describe('invoice id', () => {
  it('reads a whole number', () => {
    expect(parseInvoiceId('12')).toBe(12)
    expect(parseInvoiceId(' 7 ')).toBe(7)
  })

  it.each(['INV-0001', '1.5', '-1', '', '99999999999999999999'])('refuses %j', (input) => {
    expect(() => parseInvoiceId(input)).toThrow(`Invalid Invoice id "${input}": give the id, a whole number`)
  })
})

describe('--tax', () => {
  it.each([
    ['VAT:15', { label: 'VAT', percent: 15 }],
    ['VAT:12.5', { label: 'VAT', percent: 12.5 }],
    ['Service charge:9.99%', { label: 'Service charge', percent: 9.99 }],
    ['VAT: 15 ', { label: 'VAT', percent: 15 }],
    ['Levy: city:2', { label: 'Levy: city', percent: 2 }],
    ['15', { percent: 15 }],
    ['0.5%', { percent: 0.5 }],
  ])('reads %j', (input, tax) => {
    expect(parseTax(input)).toEqual(tax)
  })

  it.each(['VAT', 'VAT:', ':15', ' :15', 'VAT:12.345', 'VAT:-1', 'VAT:1e2', ''])('refuses %j', (input) => {
    expect(() => parseTax(input)).toThrow(`Invalid tax "${input}": use label:percent with at most 2 decimal places`)
  })
})

describe('--due', () => {
  it('reads an existing date', () => {
    expect(parseDueDate('2026-12-31')).toBe('2026-12-31')
    expect(parseDueDate(' 2028-02-29 ')).toBe('2028-02-29')
  })

  it.each(['2026-02-30', '31/12/2026', '2026-12-31T00:00:00Z', 'tomorrow'])('refuses %j', (input) => {
    expect(() => parseDueDate(input)).toThrow(`Invalid due date "${input}": use an existing date as YYYY-MM-DD`)
  })

  it.each(['0000-01-01', '1999-12-31', '2200-01-01', '9999-12-31'])('refuses %j, outside the API\'s range', (input) => {
    expect(() => parseDueDate(input)).toThrow(`Invalid due date "${input}": --due takes a day from ${DUE_DATE_RANGE.first} to ${DUE_DATE_RANGE.last}.`)
  })

  // The CLI checks --due without zod; what it lets through must be what the API's dueDateSchema takes.
  it('accepts what the API\'s dueDateSchema accepts', () => {
    const accepts = (day: string) => {
      try {
        parseDueDate(day)
        return true
      } catch {
        return false
      }
    }
    for (const day of ['1999-12-31', '2000-01-01', '2026-02-29', '2028-02-29', '2199-12-31', '2200-01-01', '0000-01-01', '9999-12-31']) {
      expect(accepts(day), day).toBe(dueDateSchema.safeParse(day).success)
    }
  })
})

describe('request bodies', () => {
  const item = { description: 'Kava bowl', quantity: 2, unitPrice: 4550 }

  it('builds the create body, with a labelled, a bare or no tax line', () => {
    expect(createInvoiceRequest({ customer: 'Mere', item: [item], due: '2026-12-31', tax: { label: 'VAT', percent: 15 } })).toEqual({
      customerName: 'Mere',
      dueDate: '2026-12-31',
      items: [item],
      taxLabel: 'VAT',
      taxPercent: 15,
    })
    expect(createInvoiceRequest({ customer: 'Mere', item: [item], due: '2026-12-31', tax: { percent: 15 } })).toMatchObject({
      taxLabel: undefined,
      taxPercent: 15,
    })
    expect(
      createInvoiceRequest({ customer: 'Mere', item: [item], due: '2026-12-31', email: 'm@x.fj', 'vat-number': '123' }),
    ).toMatchObject({ customerEmail: 'm@x.fj', vatNumber: '123', taxPercent: undefined })
  })

  it('names the missing create flags as a usage error', () => {
    const attempt = () => createInvoiceRequest({ item: [item] })
    expect(attempt).toThrow(Errors.CLIError)
    expect(attempt).toThrow('Missing --customer, --due')
  })

  it('edits only the fields given; --tax replaces the line and --clear-* sends null', () => {
    expect(updateInvoiceRequest({ due: '2027-01-31' })).toEqual({ dueDate: '2027-01-31' })
    expect(JSON.parse(JSON.stringify(updateInvoiceRequest({ tax: { percent: 10 } })))).toEqual({ taxLabel: null, taxPercent: 10 })
    expect(updateInvoiceRequest({ 'clear-tax': true, 'clear-email': true, 'clear-vat-number': true })).toMatchObject({
      taxLabel: null,
      taxPercent: 0,
      customerEmail: null,
      vatNumber: null,
    })
  })

  it('refuses an edit that changes nothing', () => {
    expect(() => updateInvoiceRequest({ 'clear-tax': false })).toThrow('Nothing to change')
  })
})
