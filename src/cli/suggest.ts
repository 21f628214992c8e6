/**
 * "Did you mean …?" for a mistyped command, flag or flag value: the nearest
 * known name by edit distance (a swap of two neighbouring letters counts as
 * one edit), when it is near enough to be a typo rather than another word.
 */

/** Edits (insert, delete, replace, swap neighbours) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The candidate closest to `typed`, if at most a third of its letters (and
 * at least one) are off; none otherwise. A candidate in the same topic
 * (`profiles:foo` against `profiles:use`) is judged by what follows the
 * topic, so a long topic name does not make room for a whole other word.
 */
export function nearest(typed: string, candidates: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const name of candidates) {
    const [mine, theirs] = withoutSharedTopic(typed.toLowerCase(), name.toLowerCase())
    const distance = editDistance(mine, theirs)
    if (distance <= Math.max(1, Math.floor(mine.length / 3)) && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}

/**
 * The dotted name (an event type, `checkout_session.succeeded`) nearest
 * `typed`, judged after the object's name as a command after its topic:
 * `checkout_session.paid` is another word than `failed`, not a typo of it.
 */
export function nearestDotted(typed: string, candidates: readonly string[]): string | undefined {
  const asTopic = (name: string): string => name.replace('.', ':')
  const meant = nearest(asTopic(typed), candidates.map(asTopic))
  return meant === undefined ? undefined : candidates.find((name) => asTopic(name) === meant)
}

/** Both ids after the topic `a` is in (`profiles:`), when `b` is in it or is it; as they are otherwise. */
function withoutSharedTopic(a: string, b: string): [string, string] {
  const topic = a.slice(0, a.lastIndexOf(':') + 1)
  if (topic === '' || !`${b}:`.startsWith(topic)) return [a, b]
  return [a.slice(topic.length), b.slice(topic.length)]
}

/** What oclif's parser throws for `--ammount`: the unknown flags, and the command's flag definitions. */
interface UnknownFlagsError {
  message: string
  flags: string[]
  parse: { input: { flags: Record<string, { allowNo?: boolean }> } }
}

const isUnknownFlagsError = (error: unknown): error is UnknownFlagsError => {
  const candidate = error as Partial<UnknownFlagsError> | null
  return (
    error instanceof Error &&
    error.message.startsWith('Nonexistent flag') &&
    Array.isArray(candidate?.flags) &&
    typeof candidate?.parse?.input?.flags === 'object'
  )
}

/**
 * Adds "Did you mean --amount?" to oclif's "Nonexistent flag: --ammount"
 * (oclif has no flag suggestions), for each unknown flag near a real one of
 * the command, `--no-` forms included. Other errors are left as they are.
 */
export function suggestFlags(error: unknown): void {
  if (!isUnknownFlagsError(error)) return
  const known = Object.entries(error.parse.input.flags).flatMap(([name, flag]) => [`--${name}`, ...(flag.allowNo ? [`--no-${name}`] : [])])
  const hints = error.flags.flatMap((typed) => {
    const flag = typed.split('=')[0]!
    const suggestion = flag.startsWith('--') ? nearest(flag, known) : undefined
    return suggestion === undefined ? [] : [`Did you mean ${suggestion}${error.flags.length > 1 ? ` for ${flag}` : ''}?`]
  })
  if (hints.length === 0) return
  const [first, ...rest] = error.message.split('\n')
  error.message = [first, ...hints, ...rest].join('\n')
}

/** oclif's refusal of a value a flag with options does not take (FlagInvalidOptionError), which has no suggestion. */
const INVALID_OPTION = /^Expected (--[\w-]+)=(.*) to be one of: (.*)$/

/**
 * Adds "Did you mean --type checkout_session.succeeded?" to oclif's
 * "Expected --type=checkout_session.succeded to be one of: …", as `bula
 * trigger` suggests the event meant. Other errors are left as they are.
 */
export function suggestFlagValue(error: unknown): void {
  if (!(error instanceof Error)) return
  const [first, ...rest] = error.message.split('\n')
  const [, flag, typed, options] = INVALID_OPTION.exec(first!) ?? []
  if (flag === undefined || typed === undefined || options === undefined) return
  const suggestion = nearestDotted(typed, options.split(', '))
  // A full stop ends oclif's list, which --json's one-line message would otherwise run into the suggestion.
  if (suggestion !== undefined) error.message = [`${first}.`, `Did you mean ${flag} ${suggestion}?`, ...rest].join('\n')
}
