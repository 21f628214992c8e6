import { describe, expect, it } from 'vitest'
import { amountTicks, linearScale, renderBalanceChart, timeTicks, type BalanceChartInput } from '../../server/http/dashboard/chart.js'

const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0)

const chart = (input: Partial<BalanceChartInput>): string =>
  renderBalanceChart({ id: 'c', title: 'Balance', balance: [], payouts: [], end: T0, emptyText: 'Nothing yet.', ...input }).html

/** The numbers of one attribute on every element of a kind, in order. */
const attrs = (svg: string, element: string, attr: string): number[] =>
  [...svg.matchAll(new RegExp(`<${element} [^>]*?${attr}="([-0-9.]+)"`, 'g'))].map((match) => Number(match[1]))

describe('chart scales', () => {
  it('maps a domain linearly onto a range, upside down for the y axis too', () => {
    const x = linearScale([100, 200], [0, 50])
    expect([x(100), x(150), x(200)]).toEqual([0, 25, 50])
    const y = linearScale([0, 1000], [260, 40])
    expect([y(0), y(500), y(1000)]).toEqual([260, 150, 40])
    expect(linearScale([5, 5], [0, 10])(5)).toBe(5)
  })

  it('puts amount ticks at 1, 2 or 5 × 10ⁿ cents from zero past the maximum', () => {
    expect(amountTicks(0, 4000)).toEqual([0, 1000, 2000, 3000, 4000])
    expect(amountTicks(1500, 4100)).toEqual([0, 2000, 4000, 6000])
    expect(amountTicks(0, 999)).toEqual([0, 500, 1000])
    expect(amountTicks(0, 0)).toEqual([0, 1])
    expect(amountTicks(0, 3)).toEqual([0, 1, 2, 3])
  })

  it('puts time ticks on round UTC hours or days, labelled by the span in the people\'s date format', () => {
    const days = timeTicks(T0, T0 + 7 * DAY)
    expect(days.ticks).toEqual([Date.UTC(2026, 10, 23), Date.UTC(2026, 10, 25), Date.UTC(2026, 10, 27), Date.UTC(2026, 10, 29)])
    expect(days.label(days.ticks[0]!)).toBe('23 Nov 2026')
    const hours = timeTicks(T0, T0 + 5 * HOUR)
    expect(hours.ticks).toHaveLength(6)
    expect(hours.label(hours.ticks[1]!)).toBe('22 Nov 11:00')
    expect(timeTicks(T0, T0 + 20 * 365 * DAY).ticks.length).toBeLessThanOrEqual(7)
  })
})

describe('balance chart', () => {
  it('shows the empty message, escaped, when there is nothing to draw', () => {
    expect(chart({ emptyText: 'No <payouts> yet' })).toBe('<p class="empty">No &lt;payouts&gt; yet</p>')
  })

  it('draws one point in the middle of a short span, with its bar and a labelled axis', () => {
    const svg = chart({ balance: [{ at: T0, amount: 2500 }], payouts: [{ at: T0, amount: 2500 }], end: T0 })
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-labelledby="c-title c-desc"/)
    expect(svg).toContain('<title id="c-title">Balance</title>')
    expect(svg).toContain(
      '<desc id="c-desc">From 22 Nov 2026, 21:00 FJT (09:00 UTC) to 22 Nov 2026, 23:00 FJT (11:00 UTC): 1 payout totalling FJ$25.00; balance FJ$25.00 at the end.</desc>',
    )
    const [barX] = attrs(svg, 'rect class="chart-bar"', 'x')
    const [barWidth] = attrs(svg, 'rect class="chart-bar"', 'width')
    expect(barX! + barWidth! / 2).toBeCloseTo((96 + 700) / 2, 0)
    expect(svg).toContain('<title>Payout of FJ$25.00, 22 Nov 2026, 22:00 FJT (10:00 UTC)</title>')
    // The axis's ticks are UTC hours, and it says so.
    expect(svg).toContain('>22 Nov 10:00</text>')
    expect(svg).toContain('>UTC</text>')
    expect(svg).toContain('>FJ$0.00</text>')
    expect(svg).toContain('>FJ$30.00</text>')
  })

  it('draws the balance as steps held until the end, rising from zero, with a bar per payout scaled to the axis', () => {
    const svg = chart({
      balance: [
        { at: T0, amount: 1000 },
        { at: T0 + DAY, amount: 3000 },
        { at: T0 + 2 * DAY, amount: 0 },
      ],
      payouts: [{ at: T0 + 2 * DAY, amount: 3000 }],
      end: T0 + 4 * DAY,
    })
    const path = /<path class="chart-balance" d="([^"]+)"/.exec(svg)![1]!
    const commands = path.split(' ')
    expect(commands[0]).toMatch(/^M[0-9.]+$/)
    // Zero is the bottom of the plot (256), the top tick (FJ$30.00) its top (40).
    expect(commands.slice(1, 3)).toEqual(['256', 'H' + commands[0]!.slice(1)])
    expect(commands.filter((command) => command.startsWith('V'))).toEqual(['V184', 'V40', 'V256'])
    expect(commands.at(-1)).toBe('H689')
    const [barY] = attrs(svg, 'rect class="chart-bar"', 'y')
    const [barHeight] = attrs(svg, 'rect class="chart-bar"', 'height')
    expect([barY, barHeight]).toEqual([40, 216])
  })

  it('escapes the title and ids', () => {
    const svg = chart({ id: 'a"b', title: '<script>alert(1)</script>', payouts: [{ at: T0, amount: 100 }] })
    expect(svg).toContain('<title id="a&quot;b-title">&lt;script&gt;alert(1)&lt;/script&gt;</title>')
    expect(svg).not.toContain('<script>')
    expect(svg).toContain('aria-labelledby="a&quot;b-title a&quot;b-desc"')
  })
})
