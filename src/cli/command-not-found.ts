import { toConfiguredId, type Hook } from '@oclif/core'
import { toErrorReport } from './error-report.js'
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
const hook: Hook.CommandNotFound = async function ({ id, argv = [], config }) {
  const names = [
    ...config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]),
    ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name),
  ]
  const suggestion = nearest(id, new Set(names))
  const shown = (name: string): string => `${config.bin} ${toConfiguredId(name, config)}`
  const hint = suggestion === undefined ? '' : ` Did you mean \`${shown(suggestion)}\`?`
  const error = usageError(`\`${shown(id)}\` is not a ${config.bin} command.${hint} Run \`${config.bin} help\` for the list of commands.`)
  if (!jsonRequested(argv)) throw error
  const report = toErrorReport(error)
  printJson(report.envelope)
  this.exit(report.exitCode)
}

export default hook
