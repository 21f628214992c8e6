import type { ChalkInstance } from 'chalk'
import { Box, render, Static, Text } from 'ink'
import { useSyncExternalStore } from 'react'
import { bulaCommand } from '../cli/launch-command.js'
import type { ForwardResult } from '../listen/forward.js'
import type { ListenReady, ListenReporter } from '../listen/listen.js'
import { accepted, deliveryColumns, describeDisconnection, describeReady, describeWaiting, eventTime } from '../listen/report.js'

/**
 * Where the event stream stands: `waiting` for a simulator not up yet at start, `disconnected` after a connection;
 * `stopped` once the command is ending and the view draws its last frame.
 */
type Connection =
  | { state: 'connecting' }
  | { state: 'connected' }
  | { state: 'waiting' | 'disconnected'; reason: string; retryInMs: number }
  | { state: 'stopped' }

/** What scrolls: the header once, then one line per delivery. Ink's Static prints each once, above the live footer. */
type LineContent = { kind: 'header'; info: ListenReady } | { kind: 'delivery'; result: ForwardResult }
type Line = LineContent & { key: string }

interface ViewState {
  lines: Line[]
  connection: Connection
  delivered: number
  notAccepted: number
}

/** The view's state, replaced whole on each change so that React sees every update. */
class ViewStore {
  private state: ViewState = { lines: [], connection: { state: 'connecting' }, delivered: 0, notAccepted: 0 }
  private readonly listeners = new Set<() => void>()

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  readonly snapshot = (): ViewState => this.state

  update(change: (state: ViewState) => Partial<ViewState>): void {
    this.state = { ...this.state, ...change(this.state) }
    for (const listener of this.listeners) listener()
  }
}

// Colours come as chalk strings, which ink prints as they are, so NO_COLOR
// and the rest of the CLI's colour rules apply here too.
function Header({ info, colors }: { info: ListenReady; colors: ChalkInstance }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} marginBottom={1}>
      <Text>{colors.bold('bula listen')}</Text>
      {describeReady(info).map((line) => (
        <Text key={line}>{line}</Text>
      ))}
      <Text>Webhook signing secret: {colors.cyan(info.secret)}</Text>
      <Text>{colors.dim(`The same secret on every run: \`${bulaCommand('listen --print-secret')}\` prints it for scripts.`)}</Text>
    </Box>
  )
}

function Footer({ state, colors }: { state: ViewState; colors: ChalkInstance }) {
  const { connection } = state
  const status =
    connection.state === 'connected'
      ? colors.green('● Connected')
      : connection.state === 'stopped'
        ? '○ Stopped'
        : colors.yellow(
            connection.state === 'connecting'
              ? '○ Connecting…'
              : `○ ${(connection.state === 'waiting' ? describeWaiting : describeDisconnection)(connection.reason, connection.retryInMs)}`,
          )
  // Ctrl-C is an invitation only while it still does something.
  const counts = `${state.delivered} delivered, ${state.notAccepted} not accepted`
  return (
    <Box flexDirection="column">
      <Text>{status}</Text>
      <Text>{colors.dim(connection.state === 'stopped' ? counts : `${counts} · Ctrl-C to stop`)}</Text>
    </Box>
  )
}

function ListenView({ store, colors }: { store: ViewStore; colors: ChalkInstance }) {
  const state = useSyncExternalStore(store.subscribe, store.snapshot)
  return (
    <>
      <Static items={state.lines}>
        {(line) =>
          line.kind === 'header' ? (
            <Header key={line.key} info={line.info} colors={colors} />
          ) : (
            <Text key={line.key}>
              {colors.dim(eventTime(line.result))} {deliveryColumns(line.result, colors)}
            </Text>
          )
        }
      </Static>
      <Footer state={state} colors={colors} />
    </>
  )
}

export interface LiveView extends ListenReporter {
  /** Renders the last frame, which says it stopped, and gives the terminal back. */
  close(): Promise<void>
}

/** The live view of `bula listen` on a terminal: header, scrolling deliveries, connection state. */
export function startListenView(colors: ChalkInstance): LiveView {
  const store = new ViewStore()
  // Ctrl-C is the command's to handle (exit 0), not ink's.
  const instance = render(<ListenView store={store} colors={colors} />, { exitOnCtrlC: false, patchConsole: false })
  let sequence = 0
  const append = (line: LineContent): Line[] => [...store.snapshot().lines, { ...line, key: String(sequence++) }]
  return {
    ready: (info) => store.update(() => ({ lines: append({ kind: 'header', info }), connection: { state: 'connected' } })),
    waiting: ({ reason, retryInMs }) => store.update(() => ({ connection: { state: 'waiting', reason, retryInMs } })),
    reconnected: () => store.update(() => ({ connection: { state: 'connected' } })),
    disconnected: ({ reason, retryInMs }) => store.update(() => ({ connection: { state: 'disconnected', reason, retryInMs } })),
    delivery: (result) =>
      store.update((state) => ({
        lines: append({ kind: 'delivery', result }),
        delivered: state.delivered + (accepted(result) ? 1 : 0),
        notAccepted: state.notAccepted + (accepted(result) ? 0 : 1),
      })),
    close: async () => {
      store.update(() => ({ connection: { state: 'stopped' } }))
      // React commits the change in a microtask, and unmount() draws no new frame after <Static> output: without
      // the wait the last frame on the terminal would still invite Ctrl-C.
      await instance.waitUntilRenderFlush()
      instance.unmount()
      await instance.waitUntilExit()
    },
  }
}
