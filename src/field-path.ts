/** A key a dot can name: not empty, and no dot, bracket, quote or white space. */
const DOTTED_KEY = /^[^.[\]"\s]+$/

/**
 * A field's path as every error's `param` names it (the API, a state import,
 * the dashboard, a fixture): object keys joined by dots, array indices in
 * brackets, so `items[0].quantity` and `collections.checkoutSessions[0].id`
 * read as the JSON the client sent. A key inside another that a dot could
 * not name (a metadata key that is empty, or holds a dot, a bracket, a quote
 * or a space) is written as a JSON string in brackets, `metadata[""]` or
 * `metadata["a.b"]`, not `metadata.` or `metadata.a.b`; the first key is
 * written as it is, so a query parameter is named as sent (`status[]`).
 * `base` is a path the first key follows.
 */
export function fieldPath(path: readonly PropertyKey[], base = ''): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`
    const name = String(key)
    if (out === '') return name
    return DOTTED_KEY.test(name) ? `${out}.${name}` : `${out}[${JSON.stringify(name)}]`
  }, base)
}
