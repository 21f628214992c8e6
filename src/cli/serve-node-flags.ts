/**
 * The Node.js options `bula serve` runs with (docs/performance.md, "Memory").
 * V8 lets its young generation grow to 64 MiB per semi-space on a machine
 * with this much memory, and the simulator's allocation pattern (every
 * request, and reading a data file at start) makes it do so: about 100 MB of
 * resident memory that 8 MiB semi-spaces save, measured at no cost in
 * creates a second.
 */
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=8'] as const

/**
 * The options of SERVE_NODE_FLAGS this process was not started with, nor
 * asked for in NODE_OPTIONS (a user's own setting of the same option wins):
 * what bin/run.js restarts `bula serve` with.
 */
export function missingServeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  // Node reads `_` in an option's name as `-`.
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map((option) => option.replace(/^[^=]*/, (name) => name.replaceAll('_', '-')))
  return SERVE_NODE_FLAGS.filter((flag) => {
    const name = flag.split('=')[0]!
    return !given.some((option) => option === name || option.startsWith(`${name}=`))
  })
}
