import { loadHelpClass, toConfiguredId, type Hook } from '@oclif/core'
import { toErrorReport } from './error-report.js'
import { bulaCommand } from './launch-command.js'
import { printJson } from './output.js'
import { nearest } from './suggest.js'
import { usageError } from './usage.js'

/** Whether `--json` comes before any `--`, as oclif decides it for a command that exists. */
function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return argv.slice(0, end === -1 ? undefined : end).includes('--json')
}

/**
 * `bula sessionz`: names the command or topic that was probably meant and
 * exits 2, as any other mistake on the command line does (docs/cli.md), with
 * --json as the `invalid_usage` envelope on stdout like a flag error. It
 * never runs the suggestion: a guess must not create or cancel anything.
 * It replaces @oclif/plugin-not-found, which only suggests when it can ask
 * on a terminal, so a script or CI log got no hint at all.
 */
const hook: Hook.CommandNotFound = async function ({ id: typed, config }) {
  // The words as typed: when the words after a command that takes no argument
  // hold colons (a URL), oclif also counts them as separators and drops as many
  // words again from the argv it passes here, --json among them.
  const words = process.argv.slice(2)
  // `bula help [command]`, which every message here points to, shows what `--help` shows (no help plugin is
  // installed); a command or topic it does not know is judged below as if typed without `help`.
  const helpSubject = words[0] === 'help' ? words.slice(1).filter((word) => !word.startsWith('-')).join(':') : undefined
  if (helpSubject !== undefined && (helpSubject === '' || config.findCommand(helpSubject) || config.findTopic(helpSubject))) {
    const Help = await loadHelpClass(config)
    await new Help(config).showHelp(words.slice(1))
    return
  }
  const id = helpSubject ?? typed
  const names = [
    ...config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]),
    ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name),
  ]
  const shown = (name: string): string => bulaCommand(toConfiguredId(name, config))
  // oclif reads the words after a command that takes no argument as part of its name: `bula conformance http://…`.
  // A command with subcommands (`bula profiles`) is left out: the word after it is a mistyped one (`bula profiles lst`).
  const ids = config.commands.map((candidate) => candidate.id)
  const command = ids
    .filter((candidate) => id.startsWith(`${candidate}:`) && !ids.some((other) => other.startsWith(`${candidate}:`)))
    .sort((a, b) => b.length - a.length)[0]
  const notACommand = (): string => {
    const suggestion = nearest(id, new Set(names))
    const hint = suggestion === undefined ? '' : ` Did you mean \`${shown(suggestion)}\`?`
    return `\`${shown(id)}\` is not a ${config.bin} command.${hint} Run \`${bulaCommand('help')}\` for the list of commands.`
  }
  const extra = (name: string): string => {
    const after = words.slice(name.split(':').length)
    const firstFlag = after.findIndex((word) => word.startsWith('-'))
    return after.slice(0, firstFlag === -1 ? undefined : firstFlag).join(' ')
  }
  const message =
    command === undefined
      ? notACommand()
      : `\`${shown(command)}\` takes no argument (got \`${extra(command)}\`). Run \`${shown(command)} --help\` for its flags.`
  const error = usageError(message)
  if (!jsonRequested(words)) throw error
  const report = toErrorReport(error)
  printJson(report.envelope)
  this.exit(report.exitCode)
}

export default hook
