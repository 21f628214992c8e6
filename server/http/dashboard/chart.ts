
import { escapeHtml, safe, type SafeHtml } from '../../templates.js'
import { formatDay, formatTime } from '../../../src/time.js'
import { formatFjd } from '../../../src/money.js'
import { plural } from '../../../src/plural.js'

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

/** An amount in FJD cents at a time: a balance from then on, or one payout. */
export interface ChartPoint {
  at: number
  amount: number
}

export interface BalanceChartInput {
  /** Prefix of the ids the SVG's title and description get; unique on the page. */
  id: string
  title: string
  /** The balance after each change, oldest first. */
  balance: readonly ChartPoint[]
  /** Payouts, drawn as bars. */
  payouts: readonly ChartPoint[]
  /** Where the time axis ends (the merchant's now): the last balance holds until then. */
  end: number
  /** Shown instead of a chart when there is nothing to draw. */
  emptyText: string
}

/** A linear map from a domain onto a range; an empty domain maps to the range's middle. */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]): (value: number) => number {
  const [d0, d1] = domain
  const [r0, r1] = range
  if (d1 === d0) return () => (r0 + r1) / 2
  return (value) => r0 + ((value - d0) / (d1 - d0)) * (r1 - r0)
}

/** Axis ticks in whole cents, 1, 2 or 5 × 10ⁿ apart, from zero (or a lower min) past max; never a zero-height axis. */
export function amountTicks(min: number, max: number, count = 4): number[] {
  const low = Math.min(0, min)
  const high = Math.max(low + 1, max)
  const raw = (high - low) / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = Math.max(1, [1, 2, 5, 10].map((f) => f * power).find((candidate) => candidate >= raw)!)
  const first = Math.floor(low / step) * step
  const last = Math.ceil(high / step) * step
  const ticks: number[] = []
  for (let tick = first; tick <= last; tick += step) ticks.push(tick)
  return ticks
}

const TIME_STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 30 * DAY, 91 * DAY, 182 * DAY, 365 * DAY]
const MAX_TIME_TICKS = 6

/** Round UTC hours or days inside [start, end], at most about six of them, with how to label them. */
export function timeTicks(start: number, end: number): { ticks: number[]; label: (at: number) => string } {
  const span = end - start
  const step =
    TIME_STEPS.find((candidate) => span / candidate <= MAX_TIME_TICKS) ?? Math.ceil(span / MAX_TIME_TICKS / (365 * DAY)) * 365 * DAY
  const ticks: number[] = []
  for (let tick = Math.ceil(start / step) * step; tick <= end; tick += step) ticks.push(tick)
  // The ticks are UTC hours and days (settlement runs at 00:00 UTC), so their labels are UTC, as the axis says.
  // Under a day apart the hour matters; otherwise the date is enough.
  const day = (at: number): string => formatDay(new Date(at).toISOString().slice(0, 10))
  const label = step < DAY ? (at: number) => `${day(at).replace(/ \d+$/, '')} ${new Date(at).toISOString().slice(11, 16)}` : day
  return { ticks, label }
}

const WIDTH = 720
const HEIGHT = 300
const MARGIN = { top: 40, right: 20, bottom: 44, left: 96 }
/** A chart of one moment still spans this much time, so its point sits in the middle. */
const MIN_SPAN = 2 * HOUR
const MAX_BAR = 18
const MIN_BAR = 3
const COLOURS = { line: '#0b6e69', bar: '#d99a1e', grid: '#d9dee5', axis: '#5b6776', text: '#5b6776' }

const num = (value: number): string => String(Math.round(value * 10) / 10)


/**
 * The balance of a mode over time as a step line, and its payouts as bars,
 * as an accessible inline SVG (role="img", title and description). Pure:
 * the page reconstructs the series from stored records and passes them in.
 * Colours are presentation attributes because the dashboard's CSP allows no
 * inline styles.
 */
export function renderBalanceChart(input: BalanceChartInput): SafeHtml {
  const { balance, payouts, end } = input
  if (balance.length === 0 && payouts.length === 0) return safe(`<p class="empty">${escapeHtml(input.emptyText)}</p>`)

  const points = [...balance, ...payouts]
  // Reduced rather than spread into Math.min: years of payments are more arguments than a call takes.
  let start = points.reduce((min, point) => Math.min(min, point.at), Infinity)
  let stop = points.reduce((max, point) => Math.max(max, point.at), end)
  if (stop - start < MIN_SPAN) {
    const middle = (start + stop) / 2
    start = middle - MIN_SPAN / 2
    stop = middle + MIN_SPAN / 2
  }
  const yTicks = amountTicks(
    points.reduce((min, point) => Math.min(min, point.amount), 0),
    points.reduce((max, point) => Math.max(max, point.amount), 0),
  )

  const left = MARGIN.left
  const right = WIDTH - MARGIN.right
  const top = MARGIN.top
  const bottom = HEIGHT - MARGIN.bottom
  const barWidth = Math.min(MAX_BAR, Math.max(MIN_BAR, (right - left) / (payouts.length * 2 + 1)))
  // Bars at either end stay inside the plot.
  const x = linearScale([start, stop], [left + barWidth / 2 + 2, right - barWidth / 2 - 2])
  const y = linearScale([yTicks[0]!, yTicks.at(-1)!], [bottom, top])

  const parts: string[] = []
  for (const tick of yTicks) {
    parts.push(
      `<line x1="${left}" x2="${right}" y1="${num(y(tick))}" y2="${num(y(tick))}" stroke="${COLOURS.grid}" stroke-width="1"/>`,
      `<text x="${left - 8}" y="${num(y(tick))}" text-anchor="end" dominant-baseline="middle" font-size="11" fill="${COLOURS.text}">${escapeHtml(formatFjd(tick))}</text>`,
    )
  }
  const time = timeTicks(start, stop)
  for (const tick of time.ticks) {
    parts.push(
      `<line x1="${num(x(tick))}" x2="${num(x(tick))}" y1="${bottom}" y2="${bottom + 5}" stroke="${COLOURS.axis}" stroke-width="1"/>`,
      `<text x="${num(x(tick))}" y="${bottom + 18}" text-anchor="middle" font-size="11" fill="${COLOURS.text}">${escapeHtml(time.label(tick))}</text>`,
    )
  }
  parts.push(
    `<line x1="${left}" x2="${right}" y1="${num(y(0))}" y2="${num(y(0))}" stroke="${COLOURS.axis}" stroke-width="1"/>`,
    `<text x="${right}" y="${bottom + 36}" text-anchor="end" font-size="11" fill="${COLOURS.text}">UTC</text>`,
  )

  for (const payout of payouts) {
    const height = Math.abs(y(0) - y(payout.amount))
    parts.push(
      `<rect class="chart-bar" x="${num(x(payout.at) - barWidth / 2)}" y="${num(Math.min(y(0), y(payout.amount)))}" width="${num(barWidth)}" height="${num(height)}" fill="${COLOURS.bar}">` +
        `<title>${escapeHtml(`Payout of ${formatFjd(payout.amount)}, ${formatTime(payout.at)}`)}</title></rect>`,
    )
  }

  if (balance.length > 0) {
    // A balance starts at zero, so the line rises from the axis at its first change.
    const steps = [`M${num(x(balance[0]!.at))} ${num(y(0))}`]
    for (const point of balance) steps.push(`H${num(x(point.at))}`, `V${num(y(point.amount))}`)
    steps.push(`H${num(x(Math.max(end, balance.at(-1)!.at)))}`)
    parts.push(`<path class="chart-balance" d="${steps.join(' ')}" fill="none" stroke="${COLOURS.line}" stroke-width="2"/>`)
  }

  parts.push(
    `<rect x="${left}" y="12" width="12" height="12" fill="${COLOURS.bar}"/>`,
    `<text x="${left + 18}" y="18" dominant-baseline="middle" font-size="12" fill="${COLOURS.text}">Payouts</text>`,
    `<line x1="${left + 90}" x2="${left + 112}" y1="18" y2="18" stroke="${COLOURS.line}" stroke-width="2"/>`,
    `<text x="${left + 118}" y="18" dominant-baseline="middle" font-size="12" fill="${COLOURS.text}">Balance</text>`,
  )

  const total = payouts.reduce((sum, payout) => sum + payout.amount, 0)
  const description =
    `From ${formatTime(start)} to ${formatTime(stop)}: ${plural(payouts.length, 'payout')} totalling ${formatFjd(total)}; ` +
    `balance ${formatFjd(balance.at(-1)?.amount ?? 0)} at the end.`
  const titleId = `${input.id}-title`
  const descId = `${input.id}-desc`
  return safe(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${escapeHtml(`${titleId} ${descId}`)}">` +
      `<title id="${escapeHtml(titleId)}">${escapeHtml(input.title)}</title>` +
      `<desc id="${escapeHtml(descId)}">${escapeHtml(description)}</desc>` +
      parts.join('') +
      '</svg>',
  )
}
