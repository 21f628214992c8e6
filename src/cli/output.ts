import path from 'node:path'
import { ux } from '@oclif/core'
import { Chalk, type ChalkInstance } from 'chalk'
import { printable } from '../terminal-text.js'
import { formatTime as formatMoment, type TimeFormatOptions } from '../time.js'

/**
 * The colour level to use: chalk's detection (TTY, FORCE_COLOR, --no-color),
 * except that a non-empty NO_COLOR always turns colour off, as no-color.org
 * asks and chalk itself does not.
 */
export function colorLevel(env: NodeJS.ProcessEnv, detected: ChalkInstance['level']): ChalkInstance['level'] {
  return env.NO_COLOR ? 0 : detected
}

export const createColors = (env: NodeJS.ProcessEnv, detected: ChalkInstance['level']): ChalkInstance =>
  new Chalk({ level: colorLevel(env, detected) })

/** Whether CI is set: any value but `false` or `0` (a `CI=false` exported in a terminal, as some recipes do, is not CI). */
const inCi = (env: NodeJS.ProcessEnv): boolean => env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0'

/**
 * Whether a live view (an ink board redrawn in place: `serve`, `listen`) can
 * be drawn: stdout is a terminal with a size, not a CI log, and not a dumb
 * terminal (TERM=dumb: Emacs' shell, editors' output panes), which shows the
 * cursor moves and erasures as text. Otherwise plain lines.
 */
export function canDrawLiveView(stdout: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): boolean {
  return stdout.isTTY === true && (stdout.columns ?? 0) > 0 && !inCi(env) && env.TERM !== 'dumb'
}

/** --json output: the value as indented JSON on stdout, never coloured (it is for programs, and oclif would ignore NO_COLOR). */
export const printJson = (json: unknown): void => ux.stdout(JSON.stringify(json, null, 2))


/** A Unix-ms timestamp as people read it, Fiji time with UTC beside it (src/time.ts); `-` for none. */
export const formatTime = (ms: number | null | undefined, options?: TimeFormatOptions): string => (ms == null ? '-' : formatMoment(ms, options))

/**
 * `key: value` lines with the values aligned. Labels and values are data
 * (a metadata entry, a customer's name), shown printable(): one line each,
 * with no control character reaching the terminal.
 */
export function formatFields(fields: ReadonlyArray<readonly [string, string]>, colors: ChalkInstance): string {
  const lines = fields.map(([label, value]) => [printable(label), printable(value)] as const)
  const width = Math.max(0, ...lines.map(([label]) => label.length)) + 1
  return lines.map(([label, value]) => `${colors.dim(`${label}:`.padEnd(width))} ${value}`).join('\n')
}

export interface Column<Row> {
  header: string
  value: (row: Row) => string
  /** Colours the cell once padded (a pass in green): the value itself is data, shown printable(). */
  paint?: (cell: string, row: Row) => string
}

/**
 * A plain-text table with a bold header. Each cell is printable() (a line
 * break or an escape sequence in the data is shown, not obeyed), and padded
 * before it is painted so ANSI codes never skew the columns.
 */
export function formatTable<Row>(rows: readonly Row[], columns: ReadonlyArray<Column<Row>>, colors: ChalkInstance): string {
  const cells = rows.map((row) => columns.map((column) => printable(column.value(row))))
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => line[index]?.length ?? 0)),
  )
  const pad = (cell: string, index: number, last: boolean) => (last ? cell : cell.padEnd(widths[index] ?? 0))
  const header = colors.bold(columns.map((column, index) => pad(column.header, index, index === columns.length - 1)).join('  '))
  const lines = cells.map((line, rowIndex) =>
    line
      .map((cell, index) => {
        const padded = pad(cell, index, index === line.length - 1)
        const paint = columns[index]?.paint
        return paint ? paint(padded, rows[rowIndex]!) : padded
      })
      .join('  '),
  )
  return [header, ...lines].join('\n')
}

/**
 * How long the opener (xdg-open, `open`, `start`) has to fail before the
 * browser counts as started: xdg-open without a display gives up at once,
 * while one that starts a browser may keep running with it.
 */
const OPENER_GRACE_MS = 1_000

/**
 * Starts the default browser on `url`, and rejects when the opener could
 * not (xdg-open without a display exits 3), so that the caller prints the
 * URL instead of claiming a window opened. `open` is loaded here so that
 * other commands never pay for it.
 */
export async function openInBrowser(url: string): Promise<void> {
  const { default: open } = await import('open')
  const opener = await open(url)
  const failure = await new Promise<string | undefined>((resolve) => {
    const started = setTimeout(() => resolve(undefined), OPENER_GRACE_MS)
    const settle = (reason: string | undefined): void => {
      clearTimeout(started)
      resolve(reason)
    }
    opener.once('error', (error) => settle(error.message))
    opener.once('exit', (code) => settle(code ? `${path.basename(opener.spawnfile)} exited with ${code}` : undefined))
  })
  if (failure !== undefined) throw new Error(failure)
}
