/**
 * A field's path as every error's `param` names it (the API, a state import,
 * the dashboard, a fixture): object keys joined by dots, array indices in
 * brackets, so `items[0].quantity` and `collections.checkoutSessions[0].id`
 * read as the JSON the client sent. `base` is a path the first key follows.
 */
export function fieldPath(path: readonly PropertyKey[], base = ''): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out === '' ? String(key) : `${out}.${String(key)}`), base)
}
