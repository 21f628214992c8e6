const UNIT_MS = {
  w: 7 * 24 * 60 * 60 * 1000,
  d: 24 * 60 * 60 * 1000,
  h: 60 * 60 * 1000,
  m: 60 * 1000,
  s: 1000,
  ms: 1,
} as const

type Unit = keyof typeof UNIT_MS

/** Largest unit first: the order parseDuration requires and formatDuration writes. */
const UNITS_DESCENDING = Object.keys(UNIT_MS) as Unit[]

// Each unit at most once, largest first, so `1d12h` reads one way only; the
// `m(?!s)` keeps `500ms` from being taken as minutes.
const DURATION_PATTERN = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/

/**
 * Parses a duration such as `90s`, `30m`, `2h`, `3d`, `1w`, `500ms` or a
 * combination largest unit first (`1d12h`, `1h30m`) into milliseconds.
 */
export function parseDuration(input: string): number {
  const text = input.trim()
  const match = text === '' ? null : DURATION_PATTERN.exec(text)
  if (!match) {
    throw new Error(
      `Invalid duration "${input}": use whole numbers with a unit (w, d, h, m, s, ms), largest unit first, e.g. 90s, 2h or 1d12h.`,
    )
  }
  const total = UNITS_DESCENDING.reduce((sum, unit, index) => {
    const amount = match[index + 1]
    return amount === undefined ? sum : sum + Number(amount) * UNIT_MS[unit]
  }, 0)
  if (!Number.isSafeInteger(total)) throw new Error(`Invalid duration "${input}": too long.`)
  return total
}

/** Writes milliseconds the way parseDuration reads them: 129600000 → `1d12h`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s'
  const sign = ms < 0 ? '-' : ''
  let rest = Math.abs(ms)
  let text = ''
  for (const unit of UNITS_DESCENDING) {
    const amount = Math.floor(rest / UNIT_MS[unit])
    if (amount > 0) {
      text += `${amount}${unit}`
      rest -= amount * UNIT_MS[unit]
    }
  }
  return sign + text
}
