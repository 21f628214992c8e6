/**
 * `npx bula` when npm started this process: through npx or `npm exec`, or a
 * package script (`npm start` of the README's quick start, a project's `npm
 * run sim`); npm sets npm_command for each. Else `bula`. The docs teach `npx
 * bula`, which runs the project's copy: a shell then has no `bula` on PATH,
 * and a hint that says bare `bula …` fails with "command not found".
 */
function launcher(env: NodeJS.ProcessEnv): string {
  return env.npm_command ? 'npx bula' : 'bula'
}

/** A bula command for a hint, as the user started this one: `bulaCommand('faults clear')` is `npx bula faults clear` under npx. */
export function bulaCommand(args: string, env: NodeJS.ProcessEnv = process.env): string {
  return `${launcher(env)} ${args}`
}

/**
 * Text whose quoted commands (`bula …`, `npx bula …`) were written not
 * knowing how the CLI was started (the simulator's messages, the client
 * library's, a sentence the help text shares), with each one as bulaCommand
 * says it.
 */
export function withLaunchedCommands(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return text.replace(/`(?:npx )?bula /g, `\`${launcher(env)} `)
}
