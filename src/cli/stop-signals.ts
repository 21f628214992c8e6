/**
 * The signals that ask a long-running command (serve, listen, logs tail,
 * exec) to stop: Ctrl-C, a supervisor's SIGTERM, and Ctrl-Break on Windows,
 * where SIGTERM is never delivered (docs/platforms.md).
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'] as const

/**
 * Calls `stop` with the signal on each of STOP_SIGNALS until the returned
 * function is called. `on`, not `once`: ink's exit hook re-raises a signal
 * that has no listener left, which would end the process before it stopped.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  for (const signal of STOP_SIGNALS) process.on(signal, stop)
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, stop)
  }
}
