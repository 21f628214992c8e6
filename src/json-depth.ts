/**
 * How deep objects and arrays may nest in a request body. Far above what any
 * route takes (a state file for `/_sim/state/import` nests about six
 * levels), and far below what a recursive JSON.stringify or schema check can
 * survive: JSON.parse reads a 200,000-deep array happily, what comes after
 * would not. The simulator refuses deeper bodies; fixtures are held to it
 * before they run.
 */
export const MAX_BODY_DEPTH = 64

/** Whether `value` nests objects and arrays more than `max` levels deep; walked with a stack of its own, never recursing. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }]
  while (stack.length > 0) {
    const { value: at, depth } = stack.pop()!
    if (typeof at !== 'object' || at === null) continue
    if (depth > max) return true
    for (const child of Object.values(at)) stack.push({ value: child, depth: depth + 1 })
  }
  return false
}
