import { execa } from 'execa'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN } from '../helpers/serve-process.js'

/** util-linux `script` runs the command on a pseudo-terminal, which is what the board needs. */
const hasScript = existsSync('/usr/bin/script')

const configDir = mkdtempSync(path.join(tmpdir(), 'bula-serve-board-'))
afterAll(() => rmSync(configDir, { recursive: true, force: true }))

/** `bula serve` on a 120-column terminal, with a way to wait for text on its screen. */
function serveOnTerminal(args: string[], env: Record<string, string> = {}) {
  // A pseudo-terminal from `script` has no size until stty gives it one. `exec`, because Ctrl-C
  // reaches the terminal's whole foreground group: a shell left waiting (dash, when SHELL is unset
  // as on CI) dies of the SIGINT and `script` reports 130 whatever bula does.
  const command = `stty cols 120 rows 40; exec node ${BIN} serve --port 0 --memory ${args.join(' ')}`
  const child = execa('script', ['-qfec', command, '/dev/null'], {
    // CI (set, whatever its value) turns the board off, in bula and in ink: this test is about the terminal a person sees.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI')), BULA_CONFIG_DIR: configDir, ...env },
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
  return { child, waitFor, screen: () => screen }
}

describe.skipIf(!hasScript)('bula serve on a terminal', () => {
  it('shows the status board with the base URL, demo keys and live requests, and stops cleanly on Ctrl-C', async () => {
    const { child, waitFor, screen } = serveOnTerminal(['--no-save-profile'])
    const [, baseUrl] = await waitFor(/simulator at (http:\/\/127\.0\.0\.1:\d+)/)
    await waitFor(new RegExp(`Dashboard: ${baseUrl}/dashboard`))
    // A key to a line, whole: side by side, the pair wrapped inside the box and a key split by the wrap cannot be copied.
    await waitFor(/│ {3}Mere's Masi Prints \(individual\) +│\s+│ {5}secret {6}sk_test_\w{32} +│\s+│ {5}publishable pk_test_\w{32} +│/)
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
    expect(screen() + result.stdout).toContain('SIGINT: finishing in-flight requests and saving')
    expect(result.exitCode).toBe(0)
    // The last frame's last line says it stopped: Ctrl-C no longer does anything.
    const text = stripVTControlCharacters(screen())
    expect(text.slice(text.lastIndexOf(' requests ('))).toMatch(/^ requests \(1 errors\) · 0 events · stopped\s*$/)
  })

  it('prints plain lines on a dumb terminal (TERM=dumb, as in Emacs\' shell), which would show the board\'s cursor moves as text', async () => {
    const { child, waitFor, screen } = serveOnTerminal(['--no-save-profile'], { TERM: 'dumb' })
    await waitFor(/Press Ctrl-C to stop\./)
    child.stdin!.write('\x03')
    expect((await child).exitCode).toBe(0)
    expect(screen()).toContain('simulator ready at http://127.0.0.1:')
    // No cursor hiding, synchronized output or erasure: nothing but text.
    expect(screen()).not.toContain('\x1b')
  })

  it('says that the CLI still uses the other simulator when "default" is taken, as the plain lines do', async () => {
    const profile = { baseUrl: 'http://127.0.0.1:4111', apiKey: `sk_test_${'a'.repeat(32)}` }
    writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ current: 'default', profiles: { default: profile } }), { mode: 0o600 })
    const { child, waitFor } = serveOnTerminal([], { npm_command: 'exec' })
    const [, port] = await waitFor(/simulator at http:\/\/127\.0\.0\.1:(\d+)/)
    await waitFor(new RegExp(`saved in CLI profile "memory-${port}"`))
    // The board wraps its lines in a box: read the words, not the layout.
    // `npx bula dashboard` alone would open the other simulator's dashboard.
    await waitFor(new RegExp(`\\(\`npx bula dashboard --profile memory-${port}\` opens it signed in\\)`.replaceAll(' ', '\\s+(?:│\\s+)?')))
    await waitFor(new RegExp(`The CLI still uses profile "default" \\(another simulator\\)\\. For this one: npx bula <command> --profile\\s+(?:│\\s+)?memory-${port}`))
    child.stdin!.write('\x03')
    expect((await child).exitCode).toBe(0)
  })
})
