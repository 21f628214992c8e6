import { isCalendarDate } from '../time.js'

const ISO_DATE_START = /^\d{4}-\d{2}-\d{2}/

/**
 * Parses a point in time given as Unix milliseconds (`1767225600000`) or an
 * ISO 8601 date (`2026-01-01`, `2026-01-01T09:00:00Z`) into Unix milliseconds.
 * A date without a time is midnight UTC; a date-time without a zone is local
 * time, as JavaScript reads it.
 */
export function parseInstant(input: string): number {
  const text = input.trim()
  if (/^\d+$/.test(text)) {
    const ms = Number(text)
    if (Number.isSafeInteger(ms)) return ms
  } else if (ISO_DATE_START.test(text)) {
    // Date.parse rolls a day the month lacks over into the next month (2027-02-29 is 1 March), so a
    // `clock advance --to` would run that month's payout, and the clock never goes back. The
    // message names the day: to the reader, 2027-02-29 looks like the ISO 8601 date asked for.
    const day = text.slice(0, 10)
    if (!isCalendarDate(day)) throw new Error(`Invalid time "${input}": ${day} does not exist. Use an existing date, e.g. 2026-01-01T09:00:00Z, or Unix milliseconds.`)
    const ms = Date.parse(text)
    if (!Number.isNaN(ms)) return ms
  }
  throw new Error(`Invalid time "${input}": use an ISO 8601 date such as 2026-01-01T09:00:00Z, or Unix milliseconds.`)
}
