import { Errors } from '@oclif/core'
import { describe, expect, it } from 'vitest'
import { metadataFromPairs, parseExpiresIn, parseMetadataPair, parseQuote } from '../../src/cli/session-inputs.js'
import { parseFjdAmount } from '../../src/money.js'

describe('--amount', () => {
  it.each([
    ['15', 1500],
    ['15.5', 1550],
    ['15.00', 1500],
    ['0.05', 5],
    ['4999.99', 499_999],
    // Exact where floats are not: 0.29 * 100 is 28.999999999999996.
    ['0.29', 29],
    ['1.13', 113],
    ['015.10', 1510],
    [' 2.50 ', 250],
  ])('reads %j as %d cents', (input, cents) => {
    expect(parseFjdAmount(input)).toBe(cents)
  })

  it.each(['1.234', '15.', '.5', '1,000', 'FJD 15', '15 FJD', 'abc', ''])('refuses %j', (input) => {
    expect(() => parseFjdAmount(input)).toThrow(/^Invalid amount ".*": give dollars with at most 2 decimal places/)
  })

  // Both were told about decimal places, which they do not lack.
  it.each([
    ['-1', 'an amount cannot be negative'],
    [' -5.00', 'an amount cannot be negative'],
    ['1e3', 'write it out without an exponent'],
    ['1E20', 'write it out without an exponent'],
  ])('refuses %j saying why: %s', (input, why) => {
    expect(() => parseFjdAmount(input)).toThrow(`Invalid amount "${input}": ${why}, e.g. 15, 15.5 or 15.00.`)
  })

  it('refuses an amount beyond exact integers', () => {
    expect(() => parseFjdAmount('99999999999999999999')).toThrow(/too large/)
  })

  it('says the limits in dollars, as the user typed them (issue 14)', () => {
    expect(() => parseFjdAmount('0')).toThrow('Invalid amount "0": it must be at least FJ$0.01.')
    expect(() => parseFjdAmount('5000')).toThrow('Invalid amount "5000": it must be under FJ$5,000.00 (at most FJ$4,999.99).')
    expect(() => parseFjdAmount('99999999')).toThrow(/must be under FJ\$5,000\.00/)
  })
})

describe('--quote', () => {
  it.each([
    ['25.00USD', { amount: 2500, currency: 'USD' }],
    ['25USD', { amount: 2500, currency: 'USD' }],
    ['25.5 AUD', { amount: 2550, currency: 'AUD' }],
    ['0.99 usd', { amount: 99, currency: 'USD' }],
  ])('reads %j', (input, quote) => {
    expect(parseQuote(input)).toEqual(quote)
  })

  it.each(['25', 'USD', '25EUR', '25 FJD', 'USD25'])('refuses %j, naming the currencies', (input) => {
    expect(() => parseQuote(input)).toThrow(`Invalid quote "${input}": give an amount and USD or AUD`)
  })

  it('refuses a third decimal in the amount', () => {
    expect(() => parseQuote('25.001USD')).toThrow(/^Invalid quote amount "25.001"/)
  })
})

describe('--metadata', () => {
  it('splits at the first "=", so values may contain "="', () => {
    expect(parseMetadataPair('order_id=1234')).toEqual({ key: 'order_id', value: '1234' })
    expect(parseMetadataPair('filter=a=b&c=d')).toEqual({ key: 'filter', value: 'a=b&c=d' })
    expect(parseMetadataPair('note=')).toEqual({ key: 'note', value: '' })
  })

  it.each(['order_id', '=1234', ''])('refuses %j', (input) => {
    expect(() => parseMetadataPair(input)).toThrow(/use key=value/)
  })

  it('builds the map, keeping odd keys as plain data', () => {
    const metadata = metadataFromPairs([parseMetadataPair('a=1'), parseMetadataPair('__proto__=x')])
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype)
    expect(JSON.parse(JSON.stringify(metadata))).toEqual({ a: '1', ['__proto__']: 'x' })
  })

  it('refuses a key given twice as a usage error', () => {
    const twice = () => metadataFromPairs([parseMetadataPair('a=1'), parseMetadataPair('a=2')])
    expect(twice).toThrow(Errors.CLIError)
    expect(twice).toThrow(expect.objectContaining({ message: 'Metadata key "a" is given twice.', oclif: { exit: 2 } }))
  })
})

// The window was the simulator's to refuse: `invalid_request: expiresAt must be 30 minutes to 24 hours from now
// (1796643697937, merchant clock)`, naming a field the user did not type and the clock in milliseconds.
describe('parseExpiresIn', () => {
  it('takes 30m to 24h as the flag writes them', () => {
    expect([parseExpiresIn('30m'), parseExpiresIn('1h30m'), parseExpiresIn('24h')]).toEqual([30 * 60_000, 90 * 60_000, 24 * 3_600_000])
  })

  it.each(['10m', '29m59s', '24h1s', '2d'])('refuses %j naming the flag and the window', (input) => {
    expect(() => parseExpiresIn(input)).toThrow(`Invalid --expires-in "${input}": a Checkout Session expires 30m to 24h after it is made (90m, 2h, 1h30m).`)
  })

  it('leaves what is no duration to parseDuration\'s message', () => {
    expect(() => parseExpiresIn('soon')).toThrow(/^Invalid duration "soon"/)
  })
})
