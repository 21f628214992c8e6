import { toConfiguredId, type Hook } from '@oclif/core'
import { nearest } from './suggest.js'

/**
 * `bula sessionz`: names the command or topic that was probably meant and
 * exits 2, as any other mistake on the command line does (docs/cli.md). It
 * never runs the suggestion: a guess must not create or cancel anything.
 * It replaces @oclif/plugin-not-found, which only suggests when it can ask
 * on a terminal, so a script or CI log got no hint at all.
 */
const hook: Hook.CommandNotFound = async function ({ id, config }) {
  const names = [
    ...config.commands.filter((command) => !command.hidden).flatMap((command) => [command.id, ...command.aliases]),
    ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name),
  ]
  const suggestion = nearest(id, new Set(names))
  const shown = (name: string): string => `${config.bin} ${toConfiguredId(name, config)}`
  const hint = suggestion === undefined ? '' : ` Did you mean \`${shown(suggestion)}\`?`
  this.error(`\`${shown(id)}\` is not a ${config.bin} command.${hint} Run \`${config.bin} help\` for the list of commands.`, { exit: 2 })
}

export default hook
