import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoDateSchema } from '../../src/schemas/index.js'
import { fijiDate, formatDay, formatFijiDay, formatTime, isCalendarDate } from '../../src/time.js'

// Issue 14: one date format and one time format for people, the same in the CLI and the simulator.
describe('dates and times for people (src/time.ts)', () => {
  it('writes a day as 31 Dec 2026', () => {
    expect(formatDay('2026-12-31')).toBe('31 Dec 2026')
    expect(formatDay('2027-01-05')).toBe('5 Jan 2027')
    expect(formatDay('2026-09-01')).toBe('1 Sep 2026')
  })

  it('writes a moment in Fiji time with UTC beside it', () => {
    expect(formatTime(Date.UTC(2026, 11, 3, 2, 5))).toBe('3 Dec 2026, 14:05 FJT (02:05 UTC)')
    expect(formatTime(Date.UTC(2026, 11, 3, 2, 5, 9), { seconds: true })).toBe('3 Dec 2026, 14:05:09 FJT (02:05:09 UTC)')
  })

  it('names the UTC day when it is another day there, and the year when that differs too', () => {
    expect(formatTime(Date.UTC(2026, 11, 2, 21, 30))).toBe('3 Dec 2026, 09:30 FJT (2 Dec 21:30 UTC)')
    expect(formatTime(Date.UTC(2026, 11, 31, 13, 0))).toBe('1 Jan 2027, 01:00 FJT (31 Dec 2026 13:00 UTC)')
  })

  it('takes the offset from the time zone database, not a fixed +12: Fiji had summer time until 2021', () => {
    // 5 Jan 2020: Fiji was on summer time, UTC+13.
    expect(formatTime(Date.UTC(2020, 0, 5, 0, 0))).toBe('5 Jan 2020, 13:00 FJST (00:00 UTC)')
    expect(fijiDate(Date.UTC(2020, 0, 5, 11, 30))).toBe('2020-01-06')
    expect(fijiDate(Date.UTC(2026, 0, 5, 11, 30))).toBe('2026-01-05')
  })

  it('gives the Fiji day of a moment, in both shapes', () => {
    const lateUtc = Date.UTC(2026, 10, 22, 12, 30)
    expect(fijiDate(lateUtc)).toBe('2026-11-23')
    expect(formatFijiDay(lateUtc)).toBe('23 Nov 2026')
  })
})

// The CLI checks `--due` with isCalendarDate so as not to load zod; the API checks the same field with isoDateSchema.
describe('isCalendarDate answers as the API\'s isoDateSchema does', () => {
  it('on leap days, month ends and malformed dates', () => {
    const cases = ['2028-02-29', '2027-02-29', '2000-02-29', '1900-02-29', '0000-02-29', '0099-12-31', '2026-04-31', '2026-12-31', '2026-00-10', '2026-13-01', '2026-1-01', ' 2026-01-01', '2026-01-01T00:00:00Z', '20260101', '']
    for (const text of cases) expect(isCalendarDate(text), text).toBe(isoDateSchema.safeParse(text).success)
  })

  it('on any YYYY-MM-DD shaped string', () => {
    const padded = (min: number, max: number, width: number) => fc.integer({ min, max }).map((value) => String(value).padStart(width, '0'))
    const shaped = fc.tuple(padded(0, 9999, 4), padded(0, 13, 2), padded(0, 32, 2)).map(([year, month, day]) => `${year}-${month}-${day}`)
    fc.assert(fc.property(fc.oneof(shaped, fc.string({ maxLength: 12 })), (text) => isCalendarDate(text) === isoDateSchema.safeParse(text).success), { numRuns: 2_000 })
  })
})

