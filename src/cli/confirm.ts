import { createInterface } from 'node:readline/promises'
import { usageError } from './usage.js'

/**
 * Asks `question` on the terminal and resolves true for "y" or "yes". The
 * question goes to stderr, so that stdout (--json) stays the result alone.
 * Without a terminal to ask on there is no one to answer: a usage error
 * (exit 2) tells to confirm with `yesFlag` instead.
 */
export async function confirm(question: string, yesFlag: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw usageError(`No terminal to confirm on: add ${yesFlag} to go ahead.`)
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim())
  } finally {
    prompt.close()
  }
}
