import { Command, Flags } from '@oclif/core'
import path from 'node:path'
import { allowedHostFlag } from '../src/cli/allowed-host-flag.js'
import { bulaCommand, withLaunchedCommands } from '../src/cli/launch-command.js'
import { canDrawLiveView } from '../src/cli/output.js'
import { onStopSignal } from '../src/cli/stop-signals.js'
import { printable } from '../src/terminal-text.js'
import type { ServeBoard } from '../src/ui/serve-board.js'

export default class Serve extends Command {
  static override summary = 'Run the simulator: the full API, hosted pages and the clock, on your machine.'

  static override description = `Starts the simulator on http://127.0.0.1:4111 with its data in .bula/data.json.
A fresh data file gets two demo merchants; their test keys are printed once and saved in the CLI profile "default", so every other command works at once.`

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 0 --json --memory',
    '<%= config.bin %> serve --data ./ci-data.json --port 4242',
    '<%= config.bin %> serve --memory --import fixtures/state.json --export-on-exit out/state.json',
    '<%= config.bin %> serve --host 0.0.0.0 --allowed-host bula --allowed-host app',
  ]

  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0 takes a free one).', default: 4111, min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to listen on.', default: '127.0.0.1' }),
    data: Flags.string({ description: 'Data file.', default: path.join('.bula', 'data.json'), exclusive: ['memory'] }),
    memory: Flags.boolean({ description: 'Keep everything in memory; nothing is written to disk.', exclusive: ['data'] }),
    json: Flags.boolean({ description: 'Print one JSON "ready" line on stdout; logs go to stderr.' }),
    'save-profile': Flags.boolean({
      description: 'Save the demo keys of a fresh data file in the CLI profile "default".',
      default: true,
      allowNo: true,
    }),
    quiet: Flags.boolean({ description: 'No request log lines.' }),
    import: Flags.string({ description: 'Replace the data with this state file at start (from --export-on-exit or `bula exec`).' }),
    'export-on-exit': Flags.string({ description: 'Write the whole state to this file when the simulator stops.' }),
    'allowed-host': allowedHostFlag,
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve)
    const { startServer, StartError } = await import('../server/start.js')
    // Log lines go to stderr, or onto the status board once it is up. They quote what clients sent (a path): printable().
    let showLine = (line: string): void => {
      process.stderr.write(`${printable(line)}\n`)
    }
    const log = (line: string): void => showLine(line)
    let server: Awaited<ReturnType<typeof startServer>>
    try {
      server = await startServer({
        port: flags.port,
        host: flags.host,
        dataFile: flags.memory ? undefined : path.resolve(flags.data),
        log,
        logRequests: !flags.quiet,
        importFile: flags.import ? path.resolve(flags.import) : undefined,
        exportOnExit: flags['export-on-exit'] ? path.resolve(flags['export-on-exit']) : undefined,
        allowedHosts: flags['allowed-host'],
      })
    } catch (error) {
      if (error instanceof StartError) this.error(withLaunchedCommands(error.message), { exit: error.exitCode })
      throw error
    }

    // Set once the status board is up, which then says it is stopping rather than inviting Ctrl-C.
    let board: ServeBoard | undefined
    // Listening for signals before the ready line: a supervisor may stop us as soon as it reads it.
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        board?.stopping()
        log(`${signal}: finishing in-flight requests and saving…`)
        server.close().then(resolve, (error: unknown) => {
          log(`could not close cleanly: ${error instanceof Error ? error.message : String(error)}`)
          process.exit(1)
        })
      }
      // A second signal changes nothing.
      let stopping = false
      onStopSignal((signal) => {
        if (stopping) return
        stopping = true
        stop(signal)
      })
    })

    let profile: string | null = null
    /** The profile the CLI's commands use once the keys are saved (BULA_PROFILE, else the current one). */
    let profileInUseName: string | null = null
    if (server.demo && flags['save-profile']) {
      const { loadConfig, profileInUse, saveProfile } = await import('../src/config/profiles.js')
      try {
        const config = await loadConfig()
        const existing = config.profiles.default
        // A second simulator (another folder, port or --memory) never silently takes over the profile another project uses.
        const name = !existing || existing.baseUrl === server.baseUrl ? 'default' : profileNameFor(server.baseUrl, server.dataFile === null)
        await saveProfile(
          name,
          { baseUrl: server.baseUrl, apiKey: server.demo.business.secret, publishableKey: server.demo.business.publishable },
          { makeCurrent: name === 'default' },
        )
        profile = name
        // The save made "default" current, or left the current one as it was.
        profileInUseName = profileInUse(name === 'default' ? { ...config, current: name } : config, undefined).name
      } catch (error) {
        // The demo merchants exist now and their keys are shown only once, below: an unreadable config or an
        // unwritable folder must not stop the simulator before they are printed.
        const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
        log(`The demo keys were not saved in a CLI profile (${reason}); use them with --api-key or BULA_API_KEY.`)
      }
    }
    const profileSaved = profile !== null

    const info = { baseUrl: server.baseUrl, version: server.version, dataFile: server.dataFile, demo: server.demo, profileSaved, profile }
    // Saved but not the profile in use: without --profile, the CLI's commands still go to another simulator.
    const otherProfile = profile !== null && profileInUseName !== null && profile !== profileInUseName ? profile : null
    // Without it, the keys of this simulator seem to be the CLI's, while its commands still go to the other one.
    const otherProfileNote =
      otherProfile === null
        ? null
        : `The CLI still uses profile "${profileInUseName}" (another simulator). For this one: ${bulaCommand(`<command> --profile ${otherProfile}`)}, or export BULA_PROFILE=${otherProfile}`
    const dashboardCommand = bulaCommand(otherProfile === null ? 'dashboard' : `dashboard --profile ${otherProfile}`)
    // The board is for a person at a terminal; CI logs, dumb terminals and --json get plain lines.
    if (!flags.json && canDrawLiveView(process.stdout, process.env)) {
      const { default: chalk } = await import('chalk')
      const { startServeBoard } = await import('../src/ui/serve-board.js')
      board = startServeBoard(info, server.ctx.eventBus, chalk, { notice: otherProfileNote, dashboardCommand })
      showLine = board.log
      await stopped
      await board.close()
      return
    }

    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ event: 'ready', ...info })}\n`)
    } else {
      const chalk = (await import('chalk')).default
      this.log(`${chalk.bold('Bula')} ${server.version} simulator ready at ${chalk.cyan(server.baseUrl)}`)
      this.log(`Data: ${server.dataFile ?? 'in memory (nothing is saved)'}`)
      this.log(`Dashboard: ${chalk.cyan(`${server.baseUrl}/dashboard`)} (\`${dashboardCommand}\` opens it signed in)`)
      if (server.demo) {
        this.log(`\nDemo merchants (test keys, shown only now${profile ? `; saved in CLI profile "${profile}"` : ''}):`)
        for (const [tier, demo] of Object.entries(server.demo)) {
          this.log(`  ${chalk.bold(printable(demo.name))} (${tier})\n    secret      ${demo.secret}\n    publishable ${demo.publishable}`)
        }
      }
      if (otherProfileNote) this.log(`\n${otherProfileNote}`)
      this.log('\nPress Ctrl-C to stop.')
    }

    await stopped
  }
}

/** The profile of a second simulator: named for the folder it runs in (or memory) and its port, as a person tells them apart. */
function profileNameFor(baseUrl: string, inMemory: boolean): string {
  const port = new URL(baseUrl).port
  const place = (inMemory ? 'memory' : path.basename(process.cwd())).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
  return place === '' ? `serve-${port}` : `${place.slice(0, 56)}-${port}`
}
