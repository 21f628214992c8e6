import { Args, Command, Flags } from '@oclif/core'
import { readFileSync } from 'node:fs'
import { constants } from 'node:os'
import path from 'node:path'
import { allowedHostFlag } from '../src/cli/allowed-host-flag.js'
import { bulaCommand, withLaunchedCommands } from '../src/cli/launch-command.js'
import { onStopSignal } from '../src/cli/stop-signals.js'
import { printable } from '../src/terminal-text.js'

export default class Exec extends Command {
  static override summary = 'Run a command against a fresh simulator, then stop it.'

  static override description = `Starts the simulator on a free port, waits until it answers, runs the command with BULA_BASE_URL, BULA_API_KEY and BULA_PUBLISHABLE_KEY set, and exits with the command's exit code. The simulator always stops, also on Ctrl-C. Data stays in memory unless --data is given.`

  static override examples = [
    '<%= config.bin %> exec -- npm test',
    '<%= config.bin %> exec --import fixtures/state.json --export-on-exit out/state.json -- node e2e.js',
    '<%= config.bin %> exec --data .bula/ci.json -- pytest',
  ]

  static override strict = false

  static override args = {
    // Not `required`: oclif's own message for a missing one adds a note about --allowed-host, though no flag was given; run() says it.
    command: Args.string({ description: 'The command to run, after `--`.' }),
  }

  static override flags = {
    data: Flags.string({ description: 'Keep the simulator data in this file (default: memory).', exclusive: ['memory'] }),
    memory: Flags.boolean({ description: 'Keep everything in memory (the default).', exclusive: ['data'] }),
    import: Flags.string({ description: 'Start from this state file (from `bula state export` or --export-on-exit).' }),
    'export-on-exit': Flags.string({ description: 'Write the state to this file when the command ends.' }),
    verbose: Flags.boolean({ description: 'Print the simulator request log on stderr.' }),
    'allowed-host': allowedHostFlag,
  }

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Exec)
    // The command as typed after the first `--`: oclif's parser moves a second one (`npm test -- --grep x`) to the
    // front and drops it from its place, so `bula exec -- npm test -- x` ran `--` (127).
    const separator = this.argv.indexOf('--')
    const [command, ...args] = separator === -1 ? (argv as string[]) : this.argv.slice(separator + 1)
    if (!command) this.error(`Give the command to run after \`--\`, e.g. \`${bulaCommand('exec -- npm test')}\`.`, { exit: 2 })
    const { startServer, StartError } = await import('../server/start.js')
    const { mintTestKeys } = await import('../server/services/merchants.js')
    const log = (line: string): void => {
      // The simulator's log lines quote what clients sent (a path): printable().
      process.stderr.write(`[bula] ${printable(line)}\n`)
    }
    let server: Awaited<ReturnType<typeof startServer>>
    try {
      server = await startServer({
        port: 0,
        dataFile: flags.data ? path.resolve(flags.data) : undefined,
        importFile: flags.import ? path.resolve(flags.import) : undefined,
        exportOnExit: flags['export-on-exit'] ? path.resolve(flags['export-on-exit']) : undefined,
        log,
        logRequests: flags.verbose === true,
        allowedHosts: flags['allowed-host'],
      })
    } catch (error) {
      if (error instanceof StartError) this.error(withLaunchedCommands(error.message), { exit: error.exitCode })
      throw error
    }
    const health = await fetch(`${server.baseUrl}/_sim/health`)
    if (!health.ok) this.error(`The simulator at ${server.baseUrl} did not answer its health check.`, { exit: 1 })
    const keys = server.demo?.business ?? mintTestKeys(server.ctx)
    await server.ctx.store.commit()
    log(`simulator at ${server.baseUrl}; running: ${[command, ...args].join(' ')}`)

    // execa resolves Windows shims (npm.cmd) through PATHEXT and kills the child if bula itself dies.
    const { execa } = await import('execa')
    const child = execa(command, args, {
      stdio: 'inherit',
      reject: false,
      env: { BULA_BASE_URL: server.baseUrl, BULA_API_KEY: keys.secret, BULA_PUBLISHABLE_KEY: keys.publishable },
    })
    // Passed on only when the command did not get it already: a second SIGINT is "force quit" to many
    // tools (Playwright, docker compose). A command that ignores it is killed on the second one,
    // however it came: the simulator must always stop (docs/testing-and-ci.md).
    let stopsAsked = 0
    const forward = (signal: NodeJS.Signals): void => {
      if (++stopsAsked === 1) {
        if (!sentToTheWholeGroup(signal)) child.kill(signal)
        return
      }
      log(`stopping ${command} with SIGKILL (asked to stop ${stopsAsked} times)`)
      child.kill('SIGKILL')
    }
    const forgetSignals = onStopSignal(forward)
    const result = await child
    forgetSignals()
    // The shell's conventions: the command's own code, 128 + n for signal n, 127 not found, 126 not runnable.
    let exitCode = result.exitCode ?? (result.signal ? 128 + constants.signals[result.signal] : 126)
    if (result.code === 'ENOENT') {
      log(`cannot run ${command}: no such command (is it installed and on PATH?)`)
      exitCode = 127
    } else if (exitCode === 126) {
      log(`cannot run ${command}: ${result.originalMessage ?? result.shortMessage}`)
    }
    await server.close()
    process.exitCode = exitCode
  }
}

/**
 * Whether a stop signal bula got went to its whole process group, so to the
 * command too (execa starts it in bula's group): Ctrl-C or Ctrl-Break from
 * the terminal. A supervisor's or CI runner's signal, and SIGTERM always
 * (no terminal sends it), go to bula alone. docs/platforms.md has the rule
 * of each system.
 */
function sentToTheWholeGroup(signal: NodeJS.Signals): boolean {
  if (signal === 'SIGTERM') return false
  // Node sees SIGINT and SIGBREAK on Windows only as console events, which reach every process of the console.
  if (process.platform === 'win32') return true
  // A program that runs bula and signals it alone mostly gives it a pipe or nothing as stdin; a person at a terminal does not.
  if (!process.stdin.isTTY) return false
  let stat: string
  try {
    stat = readFileSync('/proc/self/stat', 'utf8')
  } catch {
    // No /proc (macOS): a terminal on stdin is the best sign left that a person pressed Ctrl-C.
    return true
  }
  // pid (name) state ppid pgrp session tty_nr tpgid …: the name may hold spaces and ')', so read after the last ')'.
  const [, , pgrp, , , terminalGroup] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // The terminal signals its foreground group: bula's group, only if it is that one.
  return pgrp === terminalGroup
}
