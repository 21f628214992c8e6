import { execa } from 'execa'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { IS_POSIX } from '../helpers/platform.js'
import { BIN } from '../helpers/serve-process.js'
import { tempFolder } from '../helpers/temp.js'

/**
 * util-linux `script` runs the command on a pseudo-terminal: Ctrl-C there reaches bula's whole
 * process group, as in a person's terminal. Linux only: macOS's `script` takes other flags, and
 * these tests rename bula through /proc.
 */
const hasScript = process.platform === 'linux' && existsSync('/usr/bin/script')

/**
 * A command that says each SIGINT it gets, stops on the second (as Playwright
 * or docker compose force-quit) and otherwise a second after the first. It
 * prints the simulator's address once its handler is in place.
 */
const COUNT_INTS = `
let ints = 0
process.on('SIGINT', () => {
  console.log('got INT ' + ++ints)
  if (ints === 2) process.exit(130)
  setTimeout(() => process.exit(0), 1000)
})
console.log('BASE ' + process.env.BULA_BASE_URL)
setInterval(() => {}, 1000)
`

/** Writes `script` as command.mjs and runs `bula exec -- node command.mjs` on a terminal, with a way to wait for text on its screen. */
async function execOnTerminal(script: string) {
  const dir = await tempFolder('bula-exec-tty-')
  await writeFile(path.join(dir, 'command.mjs'), script)
  // bula's process name gets spaces and a ')': what it reads of /proc/self/stat comes after
  // that name, so a parse that splits on spaces reads the wrong fields.
  await writeFile(path.join(dir, 'rename.mjs'), "import { writeFileSync } from 'node:fs'; writeFileSync('/proc/self/comm', 'no de) x (')\n")
  // `exec`, because Ctrl-C reaches the terminal's whole foreground group: a shell left waiting
  // (dash, when SHELL is unset as on CI) dies of the SIGINT and `script` reports 130 whatever bula does.
  const command = `exec node --import ./rename.mjs ${BIN} exec -- node command.mjs`
  const child = execa('script', ['-qfec', command, '/dev/null'], { cwd: dir, stdin: 'pipe', reject: false, timeout: 30_000 })
  let screen = ''
  child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  const waitFor = async (pattern: RegExp): Promise<string> => {
    await expect.poll(() => pattern.exec(screen), { timeout: 20_000 }).toBeTruthy()
    return pattern.exec(screen)![1] ?? ''
  }
  return { child, waitFor, ctrlC: () => child.stdin!.write('\x03') }
}

describe.skipIf(!hasScript)('bula exec on a terminal', () => {
  it('lets one Ctrl-C reach the command once (the terminal delivers it; bula does not pass it on again), and closes the port', async () => {
    const { child, waitFor, ctrlC } = await execOnTerminal(COUNT_INTS)
    const base = await waitFor(/BASE (http:\S+)/)
    expect((await fetch(`${base}/_sim/health`)).status).toBe(200)
    ctrlC()
    const result = await child
    expect(result.stdout.match(/got INT \d/g)).toEqual(['got INT 1'])
    expect(result.exitCode, result.stdout).toBe(0)
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })

  it('kills a command that ignores Ctrl-C on the second one, and closes the port', async () => {
    const { child, waitFor, ctrlC } = await execOnTerminal(
      "process.on('SIGINT', () => console.log('ignoring INT')); console.log('BASE ' + process.env.BULA_BASE_URL); setInterval(() => {}, 1000)\n",
    )
    const base = await waitFor(/BASE (http:\S+)/)
    ctrlC()
    await waitFor(/(ignoring INT)/)
    expect((await fetch(`${base}/_sim/health`)).status).toBe(200)
    ctrlC()
    const result = await child
    expect(result.exitCode, result.stdout).toBe(137)
    expect(result.stdout).toContain('stopping node with SIGKILL (asked to stop 2 times)')
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })
})

// Signals to bula alone, as a supervisor or a test harness sends them: bula passes them on.
describe.skipIf(!IS_POSIX)('bula exec without a terminal', () => {
  it('passes a SIGINT sent to bula alone on to the command, once', async () => {
    const dir = await tempFolder('bula-exec-int-')
    await writeFile(path.join(dir, 'count-ints.mjs'), COUNT_INTS)
    const run = execa('node', [BIN, 'exec', '--', 'node', 'count-ints.mjs'], { cwd: dir, reject: false, timeout: 30_000 })
    let out = ''
    run.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await expect.poll(() => /BASE (http:\S+)/.exec(out), { timeout: 20_000 }).toBeTruthy()
    const base = /BASE (http:\S+)/.exec(out)![1]!
    run.kill('SIGINT')
    const result = await run
    expect(result.stdout.match(/got INT \d/g)).toEqual(['got INT 1'])
    expect(result.exitCode).toBe(0)
    await expect(fetch(`${base}/_sim/health`)).rejects.toThrow()
  })
})
