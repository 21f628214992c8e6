import { execa } from 'execa'
import { existsSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { BIN } from '../helpers/serve-process.js'

/** util-linux `script` runs the command on a pseudo-terminal, which is what the board needs. */
const hasScript = existsSync('/usr/bin/script')

describe.skipIf(!hasScript)('bula serve on a terminal', () => {
  it('shows the status board with the base URL, demo keys and live requests, and stops cleanly on Ctrl-C', async () => {
    // A pseudo-terminal from `script` has no size until stty gives it one. `exec`, because Ctrl-C
    // reaches the terminal's whole foreground group: a shell left waiting (dash, when SHELL is unset
    // as on CI) dies of the SIGINT and `script` reports 130 whatever bula does.
    const command = `stty cols 120 rows 40; exec node ${BIN} serve --port 0 --memory --no-save-profile`
    const child = execa('script', ['-qfec', command, '/dev/null'], {
      // CI (set, whatever its value) turns the board off, in bula and in ink: this test is about the terminal a person sees.
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI')),
      extendEnv: false,
      stdin: 'pipe',
      reject: false,
      timeout: 30_000,
    })
    let screen = ''
    const wakers = new Set<() => void>()
    child.stdout!.on('data', (chunk: Buffer) => {
      screen += chunk.toString()
      for (const wake of wakers) wake()
    })
    const waitFor = (pattern: RegExp): Promise<RegExpMatchArray> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          // Colours and cursor moves split the text a person reads.
          const match = pattern.exec(stripVTControlCharacters(screen))
          if (!match) return
          wakers.delete(check)
          resolve(match)
        }
        wakers.add(check)
        check()
        void child.then(() => reject(new Error(`serve ended before ${pattern}: ${screen}`)))
      })
    const [, baseUrl] = await waitFor(/simulator at (http:\/\/127\.0\.0\.1:\d+)/)
    await waitFor(new RegExp(`Dashboard: ${baseUrl}/dashboard`))
    await waitFor(/Kava Kitchen Ltd \(business\): sk_test_\w+/)
    await waitFor(/Ctrl-C to stop/)
    // A browser's favicon request is no error (issue 14); a route that does not exist is.
    await fetch(`${baseUrl}/favicon.ico`)
    await waitFor(/\/favicon\.ico .*204/)
    await waitFor(/1 requests \(0 errors\)/)
    await fetch(`${baseUrl}/v1/nothing-here`)
    await waitFor(/\/v1\/nothing-here .*404/)
    await waitFor(/2 requests \(1 errors\)/)
    child.stdin!.write('\x03')
    const result = await child
    expect(screen + result.stdout).toContain('SIGINT: finishing in-flight requests and saving')
    expect(result.exitCode).toBe(0)
  })
})
