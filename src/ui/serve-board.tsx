import type { ChalkInstance } from 'chalk'
import type { EventEmitter } from 'node:events'
import { Box, render, Static, Text } from 'ink'
import { useSyncExternalStore } from 'react'
import { printable } from '../terminal-text.js'

export interface ServeBoardInfo {
  baseUrl: string
  version: string
  dataFile: string | null
  demo: { [tier in 'business' | 'individual']?: { name: string; secret: string; publishable: string } } | null
  profileSaved: boolean
  /** The CLI profile the demo keys were saved in, if any. */
  profile: string | null
}

/** An event as the bus carries it (server/events/payload.ts), as far as the board shows it. */
interface EventEntry {
  id: string
  type: string
  mode: string
  merchantId: string
}

type Line = { key: string; text: string }

interface BoardState {
  lines: Line[]
  requests: number
  errors: number
  events: number
  /** Whether the simulator is running, finishing its requests after a stop signal, or stopped. */
  phase: 'running' | 'stopping' | 'stopped'
}

/** The end of the board's last line: Ctrl-C is an invitation only while it still does something. */
const PHASE_NOTE: Record<BoardState['phase'], string> = { running: 'Ctrl-C to stop', stopping: 'stopping…', stopped: 'stopped' }

/** The request log line of server/http/app.ts: `METHOD path status latency request-id`. */
const REQUEST_LINE = /^([A-Z]+) (\S+) (\d{3}) (\S+) (req_\S+)$/

/** Replaced whole on each change so React sees every update. */
class BoardStore {
  private state: BoardState = { lines: [], requests: 0, errors: 0, events: 0, phase: 'running' }
  private readonly listeners = new Set<() => void>()
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
  readonly snapshot = (): BoardState => this.state
  update(change: (state: BoardState) => Partial<BoardState>): void {
    this.state = { ...this.state, ...change(this.state) }
    for (const listener of this.listeners) listener()
  }
}

const clock = (): string => new Date().toLocaleTimeString('en-GB', { hour12: false })
const shortId = (id: string): string => id.slice(0, 9)

/** What the board says besides ServeBoardInfo: `notice`, a line for the reader's attention, and the command that opens this simulator's dashboard. */
export interface ServeBoardHints {
  notice: string | null
  dashboardCommand: string
}

function Header({ info, colors, hints }: { info: ServeBoardInfo; colors: ChalkInstance; hints: ServeBoardHints }) {
  const demo = Object.entries(info.demo ?? {})
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} marginBottom={1}>
      <Text>
        {colors.bold('Bula')} {info.version} simulator at {colors.cyan(info.baseUrl)}
      </Text>
      <Text>Data: {info.dataFile ?? 'in memory (nothing is saved)'}</Text>
      <Text>
        Dashboard: {colors.cyan(`${info.baseUrl}/dashboard`)} {colors.dim(`(\`${hints.dashboardCommand}\` opens it signed in)`)}
      </Text>
      {demo.length > 0 ? (
        <Text>{`Demo test keys (shown only now${info.profile ? `; saved in CLI profile "${info.profile}"` : ''}):`}</Text>
      ) : (
        <Text>{colors.dim('Demo keys were shown when this data file was created; the CLI profile keeps them.')}</Text>
      )}
      {/* A key to a line, as the plain lines print them: side by side, the pair wrapped inside the box at 80 or 100
          columns, and a key split by the wrap cannot be copied. */}
      {demo.map(([tier, keys]) => (
        <Box key={tier} flexDirection="column">
          <Text>{`  ${printable(keys.name)} (${tier})`}</Text>
          <Text>
            {'    secret      '}
            {colors.green(keys.secret)}
          </Text>
          <Text>
            {'    publishable '}
            {colors.dim(keys.publishable)}
          </Text>
        </Box>
      ))}
      {hints.notice ? <Text>{colors.yellow(hints.notice)}</Text> : null}
      <Text>{colors.dim('Dashboard stand-in under /_sim · OpenAPI at /openapi.json')}</Text>
    </Box>
  )
}

function Board({ store, info, colors, hints }: { store: BoardStore; info: ServeBoardInfo; colors: ChalkInstance; hints: ServeBoardHints }) {
  const state = useSyncExternalStore(store.subscribe, store.snapshot)
  return (
    <>
      <Static items={[{ key: 'header' }, ...state.lines]}>
        {(line) => (line.key === 'header' ? <Header key="header" info={info} colors={colors} hints={hints} /> : <Text key={line.key}>{(line as Line).text}</Text>)}
      </Static>
      <Text>{colors.dim(`${state.requests} requests (${state.errors} errors) · ${state.events} events · ${PHASE_NOTE[state.phase]}`)}</Text>
    </>
  )
}

export interface ServeBoard {
  /** A line of the server's log: a request (shown as a row) or a notice. */
  log(line: string): void
  /** The simulator got a stop signal and is finishing its requests: a second Ctrl-C changes nothing. */
  stopping(): void
  /** Renders the last frame, which says the simulator stopped, and gives the terminal back. */
  close(): Promise<void>
}

/**
 * The status board of `bula serve` on a terminal: base URL and demo keys
 * (with the hints' notice under them), then the
 * live request log and the events as they happen.
 */
export function startServeBoard(info: ServeBoardInfo, bus: EventEmitter, colors: ChalkInstance, hints: ServeBoardHints): ServeBoard {
  const store = new BoardStore()
  let sequence = 0
  const append = (text: string, change: (state: BoardState) => Partial<BoardState> = () => ({})): void =>
    store.update((state) => ({ ...change(state), lines: [...state.lines, { key: String(sequence++), text }] }))
  const statusColour = (status: number): string =>
    status >= 500 ? colors.red(String(status)) : status >= 400 ? colors.yellow(String(status)) : colors.green(String(status))
  /**
   * Every request (hosted pages and signups too) comes through the server's log lines; other lines are notices. A
   * line quotes what clients sent (a path), so it is shown printable().
   */
  const onLogLine = (logged: string): void => {
    const line = printable(logged)
    const request = REQUEST_LINE.exec(line)
    if (!request) {
      append(`${colors.dim(clock())} ${colors.yellow(line)}`)
      return
    }
    const [, method, path, status, latency, requestId] = request
    const code = Number(status)
    append(`${colors.dim(clock())} ${method!.padEnd(6)} ${path} ${statusColour(code)} ${colors.dim(`${latency} ${requestId}`)}`, (state) => ({
      requests: state.requests + 1,
      errors: state.errors + (code >= 400 ? 1 : 0),
    }))
  }
  const onEvent = (event: EventEntry): void =>
    append(`${colors.dim(clock())} ${colors.magenta('event')}  ${printable(event.type)} ${colors.dim(printable(`${event.id} ${event.mode} ${shortId(event.merchantId)}`))}`, (state) => ({
      events: state.events + 1,
    }))
  bus.on('event', onEvent)
  // Ctrl-C stops the simulator gracefully (the command's handler), not ink.
  const instance = render(<Board store={store} info={info} colors={colors} hints={hints} />, { exitOnCtrlC: false, patchConsole: false })
  return {
    log: onLogLine,
    stopping: () => store.update(() => ({ phase: 'stopping' })),
    close: async () => {
      bus.off('event', onEvent)
      store.update(() => ({ phase: 'stopped' }))
      // React commits the change in a microtask, and unmount() draws no new frame after <Static> output: without
      // the wait the last frame on the terminal would still invite Ctrl-C.
      await instance.waitUntilRenderFlush()
      instance.unmount()
      await instance.waitUntilExit()
    },
  }
}
