import { createInterface } from 'node:readline/promises'
import { printable } from '../terminal-text.js'
import { InterruptedError } from './error-report.js'
import { usageError } from './usage.js'

/** Where the question is asked and answered: the process's stdin and stderr, or a test's streams. */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean }
  output: NodeJS.WritableStream
}

/**
 * Asks `question` on the terminal and resolves true for "y" or "yes". The
 * question goes to stderr, so that stdout (--json) stays the result alone,
 * printable(), since it names data (a merchant's name).
 * Without a terminal to ask on there is no one to answer: a usage error
 * (exit 2) tells to confirm with `yesFlag` instead.
 *
 * Ctrl-D (the end of input) is a "no". Ctrl-C throws InterruptedError
 * (exit 130, the shell's code for a Ctrl-C) rather than readline's
 * AbortError, which oclif would print as a stack-trace-like failure.
 */
export async function confirm(
  question: string,
  yesFlag: string,
  terminal: Terminal = { input: process.stdin, output: process.stderr },
): Promise<boolean> {
  if (!terminal.input.isTTY) throw usageError(`No terminal to confirm on: add ${yesFlag} to go ahead.`)
  const prompt = createInterface({ input: terminal.input, output: terminal.output })
  // Ctrl-C is emitted here, since there is a listener, instead of closing the
  // prompt; Ctrl-D or the end of input closes it. A closed prompt would leave
  // the question pending forever, so both cancel it (which also ends the
  // question's line on the terminal).
  const cancel = new AbortController()
  prompt.once('SIGINT', () => cancel.abort(new InterruptedError('Cancelled with Ctrl-C: nothing was changed.')))
  prompt.once('close', () => cancel.abort())
  try {
    return /^y(es)?$/i.test((await prompt.question(`${printable(question)} [y/N] `, { signal: cancel.signal })).trim())
  } catch (error) {
    if (!cancel.signal.aborted) throw error
    if (cancel.signal.reason instanceof InterruptedError) throw cancel.signal.reason
    return false
  } finally {
    prompt.close()
  }
}
