import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { parseSnapshot } from '../../server/store/snapshot-file.js'
import { openTestStore, payment, tempDataFile } from './temp-store.js'

/** What a parsed snapshot means, whichever way it was read. */
const meaning = (text: string) => {
  const loaded = parseSnapshot(text, 'data.json')
  return { collections: [...loaded.collections].map(([name, docs]) => [name, [...docs]]), groups: loaded.groups, journal: loaded.journal }
}

/** The meaning, or the refusal's message. */
const outcome = (text: string) => {
  try {
    return meaning(text)
  } catch (error) {
    // JSON.parse's own words name a position, which the leading space shifts.
    return (error as Error).message.replace(/ \(.*\)\. /, ' (…). ')
  }
}

describe('snapshot layout', () => {
  it('writes one compact line per document, and reads it as JSON.parse reads the same text', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    for (const id of ['p1', 'odd "id" \\ \u00e9', '__proto__', 'p2']) store.put('payments', payment(id))
    store.put('notes', { id: 'n1', text: 'line\nbreak, "quoted" }, {' })
    await store.close()
    const text = await readFile(file, 'utf8')
    expect(text.startsWith('{\n  "format": "bula-data",\n  "version": 1,\n  "collections": {\n    "payments": {\n      "p1": {"id":"p1",')).toBe(true)
    expect(text).toContain('\n      "n1": {"id":"n1","text":"line\\nbreak, \\"quoted\\" }, {"}\n    }\n  },\n  "groups": {\n')
    const parsed = JSON.parse(text)
    expect(parsed.collections.payments.p2).toEqual(payment('p2'))
    // The same data reformatted by hand (an editor, jq) takes the general path and means the same.
    expect(meaning(JSON.stringify(parsed, null, 2))).toEqual(meaning(text))
    expect(meaning(JSON.stringify(parsed))).toEqual(meaning(text))
    const reopened = await openTestStore(file)
    expect([...reopened.store.values('payments')].map((doc) => doc.id)).toEqual(['p1', 'odd "id" \\ \u00e9', '__proto__', 'p2'])
    expect(reopened.store.get('notes', 'n1')?.text).toBe('line\nbreak, "quoted" }, {')
    await reopened.store.close()
  })

  it('refuses or reads edited files exactly as JSON.parse of the whole text would', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    store.put('payments', payment('p1'))
    store.put('payments', payment('p2'))
    store.put('notes', { id: 'n1', text: 'one' })
    await store.close()
    const text = await readFile(file, 'utf8')
    const edits = [
      text.replace('"p1": {"id":"p1"', '"p1": {"id":"other"'), // id does not match its key
      text.replace(/("p1": \{[^\n]*),\n/, '$1\n'), // a missing comma
      text.replace(/("p2": \{[^\n]*)\n/, '$1,\n'), // a trailing comma
      text.replace('  },\n  "groups"', '  },\n  "version": 2,\n  "groups"'), // a second version
      text.replace('    "notes": {', '    "payments": {'), // a collection given twice: the last wins
      text.replace(/\n {6}"p2"/, ' "p2"'), // two documents on one line
      `${text}x`,
    ]
    // A leading space makes the reader take the general path (JSON.parse of the whole text) on the same JSON.
    for (const edited of edits) expect(outcome(edited)).toEqual(outcome(` ${edited}`))
    expect(outcome(text)).toEqual(outcome(` ${text}`))
  })
})
