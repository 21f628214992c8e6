import { Chalk } from 'chalk'
import { describe, expect, it } from 'vitest'
import { canDrawLiveView, colorLevel, formatFields, formatTable, formatTime } from '../../src/cli/output.js'
import { plural } from '../../src/plural.js'
import { formatFjd, formatMoney } from '../../src/money.js'

const plain = new Chalk({ level: 0 })

describe('colorLevel', () => {
  it('turns colour off for any non-empty NO_COLOR, even when forced', () => {
    expect(colorLevel({ NO_COLOR: '1' }, 3)).toBe(0)
    expect(colorLevel({ NO_COLOR: '0', FORCE_COLOR: '1' }, 1)).toBe(0)
  })

  it('keeps the detected level otherwise', () => {
    expect(colorLevel({}, 2)).toBe(2)
    expect(colorLevel({ NO_COLOR: '' }, 1)).toBe(1)
  })
})

describe('formatters', () => {
  it('counts in the singular for one only: 1 object, not 1 objects', () => {
    expect(plural(1, 'object')).toBe('1 object')
    expect(plural(0, 'object')).toBe('0 objects')
    expect(plural(2, 'object')).toBe('2 objects')
    expect(plural(1, 'delivery', 'deliveries')).toBe('1 delivery')
    expect(plural(3, 'delivery', 'deliveries')).toBe('3 deliveries')
  })

  it('formats FJD cents as people read them everywhere: FJ$ (issue 14)', () => {
    expect(formatFjd(0)).toBe('FJ$0.00')
    expect(formatFjd(5)).toBe('FJ$0.05')
    expect(formatFjd(499_999)).toBe('FJ$4,999.99')
    expect(formatFjd(-1250)).toBe('-FJ$12.50')
    expect(formatMoney(2500, 'USD')).toBe('US$25.00')
  })

  it('formats times as people read them, Fiji first with UTC beside it, and none as - (issue 14)', () => {
    expect(formatTime(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2 Jan 2026, 15:04 FJT (03:04 UTC)')
    expect(formatTime(Date.UTC(2026, 0, 2, 3, 4, 5), { seconds: true })).toBe('2 Jan 2026, 15:04:05 FJT (03:04:05 UTC)')
    expect(formatTime(null)).toBe('-')
  })

  it('aligns key: value lines', () => {
    expect(formatFields([['id', 'ms_1'], ['payout schedule', 'weekly']], plain)).toBe(
      'id:              ms_1\npayout schedule: weekly',
    )
  })

  it('pads table columns to the widest cell, before colouring', () => {
    const rows = [
      { id: 'key_1', status: 'active' },
      { id: 'key_22222', status: 'revoked' },
    ]
    const columns = [
      { header: 'ID', value: (row: (typeof rows)[number]) => row.id },
      { header: 'STATUS', value: (row: (typeof rows)[number]) => row.status },
    ]
    expect(formatTable(rows, columns, plain)).toBe('ID         STATUS\nkey_1      active\nkey_22222  revoked')
    expect(formatTable(rows, columns, new Chalk({ level: 1 })).split('\n')[0]).toBe('\u001B[1mID         STATUS\u001B[22m')
  })
})

describe('canDrawLiveView', () => {
  const terminal = { isTTY: true, columns: 100 }
  it.each([
    [{}, true],
    [{ CI: 'true' }, false],
    [{ CI: '1' }, false],
    [{ CI: 'false' }, true],
    [{ CI: '0' }, true],
    [{ CI: '' }, true],
    [{ TERM: 'dumb' }, false],
  ])('%j: %s', (env, drawn) => {
    expect(canDrawLiveView(terminal, env)).toBe(drawn)
  })

  it('draws nothing where stdout is not a terminal with a size', () => {
    expect(canDrawLiveView({ isTTY: false, columns: 100 }, {})).toBe(false)
    expect(canDrawLiveView({ isTTY: true, columns: 0 }, {})).toBe(false)
  })
})
