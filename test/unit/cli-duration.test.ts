import { describe, expect, it } from 'vitest'
import { formatDuration, parseDuration } from '../../src/duration.js'
import { parseInstant } from '../../src/cli/instant.js'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90 * SECOND],
    ['30m', 30 * MINUTE],
    ['2h', 2 * HOUR],
    ['3d', 3 * DAY],
    ['1w', 7 * DAY],
    ['1d12h', DAY + 12 * HOUR],
    ['1h30m', HOUR + 30 * MINUTE],
    ['1m30s500ms', MINUTE + 30 * SECOND + 500],
    ['2w3d4h5m6s7ms', 17 * DAY + 4 * HOUR + 5 * MINUTE + 6 * SECOND + 7],
    ['0s', 0],
    [' 2h ', 2 * HOUR],
  ])('reads %j as %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms)
  })

  it.each(['', '90', 'h', '2x', '1.5h', '-2h', '12h1d', '1h1h', '2 h', '2H', 'ms', '1m1m', 'PT2H'])(
    'refuses %j with an explanation',
    (input) => {
      expect(() => parseDuration(input)).toThrow(/^Invalid duration ".*": use whole numbers with a unit/)
    },
  )

  it('refuses a duration beyond safe integers', () => {
    expect(() => parseDuration('99999999999999999w')).toThrow(/too long/)
  })
})

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [2 * HOUR, '2h'],
    [DAY + 12 * HOUR, '1d12h'],
    [8 * DAY + 1, '1w1d1ms'],
    [-90 * SECOND, '-1m30s'],
  ])('writes %d as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 999, 61_001, 3 * DAY + 7 * HOUR, 400 * DAY]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms)
    }
  })
})

describe('parseInstant', () => {
  it.each([
    ['1767225600000', 1_767_225_600_000],
    ['2026-01-01', Date.UTC(2026, 0, 1)],
    ['2026-01-01T09:30:00Z', Date.UTC(2026, 0, 1, 9, 30)],
    ['2026-01-01T09:30:00+12:00', Date.UTC(2025, 11, 31, 21, 30)],
    ['2028-02-29', Date.UTC(2028, 1, 29)],
    ['2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
  ])('reads %j', (input, ms) => {
    expect(parseInstant(input)).toBe(ms)
  })

  // Days the month lacks: Date.parse would roll them into the next month, past a monthly payout run.
  it.each(['tomorrow', '', '2026-13-45', '1.5', 'Jan 1 2026', '2027-02-29', '2026-04-31', '2026-02-30T00:00:00Z'])('refuses %j', (input) => {
    expect(() => parseInstant(input)).toThrow(/^Invalid time/)
  })

  it('names a day the month lacks as such, not as a wrong format', () => {
    expect(() => parseInstant('2027-02-29')).toThrow('Invalid time "2027-02-29": 2027-02-29 does not exist. Use an existing date')
    expect(() => parseInstant('2026-04-31T00:00:00Z')).toThrow('2026-04-31 does not exist.')
  })
})
