/**
 * Dates and times as people read them, the same in the CLI, the dashboard,
 * the hosted pages, e-mails and the PDF: a day is `31 Dec 2026`, a moment
 * is `3 Dec 2026, 14:05 FJT (02:05 UTC)`, Fiji's clock first (due dates and
 * overdue are Fiji days) and UTC beside it (settlement runs at 00:00 UTC).
 * No zod and no CLI here: the simulator and the CLI both use it.
 */

export const FIJI_TIME_ZONE = 'Pacific/Fiji'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const

/**
 * Month names are spelled here rather than by Intl, whose abbreviations
 * change between ICU versions ("Sep" / "Sept"), so that a PDF's bytes do not
 * depend on the Node build. Intl only gives the numbers of Fiji's wall clock.
 */
const dayText = (year: number, month: number, day: number): string => `${day} ${MONTHS[month - 1]} ${year}`

/**
 * Whether `text` is a calendar date that exists, as YYYY-MM-DD: what the
 * API's `isoDateSchema` accepts, without loading zod (the CLI checks
 * `--due` before it sends anything). test/unit/time.test.ts holds the two
 * to the same answers.
 */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!match) return false
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number]
  // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as they are.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** `2026-12-31` → `31 Dec 2026`. */
export function formatDay(isoDate: string): string {
  const [year, month, day] = isoDate.split('-').map(Number)
  return dayText(year!, month!, day!)
}

interface WallClock {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

let fijiParts: Intl.DateTimeFormat | undefined

/**
 * Fiji's wall clock at `ms`, and its offset from UTC in minutes, from the
 * time zone database: Fiji has kept +12 all year since 2022, but it has had
 * summer time (+13) before, and the database knows when.
 */
function fijiClock(ms: number): WallClock & { offsetMinutes: number } {
  fijiParts ??= new Intl.DateTimeFormat('en-GB', {
    timeZone: FIJI_TIME_ZONE,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  })
  const parts = Object.fromEntries(fijiParts.formatToParts(ms).map((part) => [part.type, part.value]))
  // "GMT+12:00"; plain "GMT" for a zero offset, which Fiji never has.
  const offset = /GMT([+-])(\d{2}):(\d{2})/.exec(parts.timeZoneName ?? '')
  const offsetMinutes = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    offsetMinutes,
  }
}

const utcClock = (ms: number): WallClock => {
  const date = new Date(ms)
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  }
}

const two = (n: number): string => String(n).padStart(2, '0')

/** FJT, or FJST in summer time; any other offset by its number. */
function zoneLabel(offsetMinutes: number): string {
  if (offsetMinutes === 12 * 60) return 'FJT'
  if (offsetMinutes === 13 * 60) return 'FJST'
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `UTC${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`
}

/** The calendar day in Fiji at `ms`, `YYYY-MM-DD`: the day due dates and overdue are counted in. */
export function fijiDate(ms: number): string {
  const { year, month, day } = fijiClock(ms)
  return `${year}-${two(month)}-${two(day)}`
}

/** The day in Fiji at `ms`, as people read it: `31 Dec 2026`. */
export function formatFijiDay(ms: number): string {
  const { year, month, day } = fijiClock(ms)
  return dayText(year, month, day)
}

export interface TimeFormatOptions {
  /** Down to the second, for logs and streams where several things happen in a minute. */
  seconds?: boolean
}

/**
 * A moment as people read it: `3 Dec 2026, 14:05 FJT (02:05 UTC)`. The UTC
 * part repeats the day when it is another day there (`3 Dec 2026, 09:30 FJT
 * (2 Dec 21:30 UTC)`), and the year when that differs too.
 */
export function formatTime(ms: number, options: TimeFormatOptions = {}): string {
  const fiji = fijiClock(ms)
  const utc = utcClock(ms)
  const clock = (at: WallClock): string => `${two(at.hour)}:${two(at.minute)}${options.seconds ? `:${two(at.second)}` : ''}`
  let utcDay = ''
  if (utc.day !== fiji.day || utc.month !== fiji.month || utc.year !== fiji.year) {
    utcDay = utc.year === fiji.year ? `${utc.day} ${MONTHS[utc.month - 1]} ` : `${dayText(utc.year, utc.month, utc.day)} `
  }
  return `${dayText(fiji.year, fiji.month, fiji.day)}, ${clock(fiji)} ${zoneLabel(fiji.offsetMinutes)} (${utcDay}${clock(utc)} UTC)`
}
