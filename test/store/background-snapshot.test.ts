import { readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BackgroundSnapshot } from '../../server/store/background-snapshot.js'
import { RawDocs } from '../../server/store/raw-docs.js'
import { SnapshotRenderer, type FrozenCollection, type JournalCoverage, type SnapshotSource } from '../../server/store/snapshot-render.js'
import { tempFolder } from '../helpers/temp.js'

const journal: JournalCoverage = { bytes: 1234, sha256: 'ab'.repeat(32) }

/** The whole text of a snapshot, chunk by chunk as the file takes it (a chunk is valid until the next call, so each is copied). */
async function textOf(source: SnapshotSource): Promise<Buffer> {
  const chunks: Buffer[] = []
  for (let chunk = await source.next(); chunk !== null; chunk = await source.next()) chunks.push(Buffer.from(chunk))
  return Buffer.concat(chunks)
}

/** Threads of this process: the render thread is one while it runs. */
const threads = (): number => readdirSync('/proc/self/task').length

/**
 * A frozen state as a store has it: a lazy collection of 25,000 documents,
 * two in three of them on disk in `file` and the rest as text, in two groups
 * of more ids than one message takes; a collection of parsed documents,
 * more than one message's worth; and an empty one.
 */
async function frozenState(): Promise<{ raw: RawDocs; collections: FrozenCollection[] }> {
  const folder = await tempFolder('bula-background-snapshot-')
  const file = path.join(folder, 'origin.json')
  const texts = Array.from({ length: 25_000 }, (_, n) => JSON.stringify({ id: `cs_${n}`, amount: n * 7, note: `Nadi, "Bula" ✓ ${n}` }))
  writeFileSync(file, texts.join('\n'))
  const raw = new RawDocs()
  const origin = raw.openOrigin(file)
  let offset = 0
  const values = texts.map((text, n) => {
    const length = Buffer.byteLength(text)
    const value = n % 3 === 2 ? text : raw.add(origin, offset, length)
    offset += length + 1
    return value
  })
  const ids = texts.map((_, n) => `cs_${n}`)
  const collections: FrozenCollection[] = [
    { name: 'checkoutSessions', ids, values, groups: [['byMerchantMode', [['ms_1:test', ids.slice(0, 12_000)], ['ms_2:test', ids.slice(12_000)]]]] },
    { name: 'merchants', ids: null, values: Array.from({ length: 1_200 }, (_, n) => ({ id: `ms_${n}`, name: `Kava "Kitchen" ${n}`, tier: 'business' })), groups: [] },
    { name: 'payouts', ids: null, values: [], groups: [] },
  ]
  return { raw, collections }
}

describe('BackgroundSnapshot', () => {
  it('renders in a thread of its own the very text, length and document places this thread renders, then stops the thread', async () => {
    const { raw, collections } = await frozenState()
    const here = new SnapshotRenderer(collections, journal, raw.reader())
    const expected = await textOf(here)
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    const actual = await textOf(there)
    expect(actual.length).toBe(expected.length)
    expect(actual.equals(expected)).toBe(true)
    expect(there.bytes).toBe(here.bytes)
    expect(Array.from(there.lazySpans.offsets)).toEqual(here.lazySpans.offsets)
    expect(Array.from(there.lazySpans.lengths)).toEqual(here.lazySpans.lengths)
    expect(here.lazySpans.offsets).toHaveLength(25_000)
    // The places are where the documents are in the text.
    const at = 24_999
    expect(JSON.parse(actual.subarray(there.lazySpans.offsets[at], there.lazySpans.offsets[at]! + there.lazySpans.lengths[at]!).toString())).toMatchObject({ id: 'cs_24999' })
    // Once the end is handed out, no thread is left behind.
    expect(threads()).toBeLessThanOrEqual(before)
    expect(await there.next()).toBeNull()
    raw.close()
  })

  it('stops its thread before a next() after abort() fails with the reason: a closing store then lets go of the files the thread reads', async () => {
    const { raw, collections } = await frozenState()
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    expect(await there.next()).not.toBeNull()
    expect(threads()).toBeGreaterThan(before)
    there.abort('the store is closing')
    await expect(there.next()).rejects.toThrow('the store is closing')
    expect(threads()).toBeLessThanOrEqual(before)
    raw.close()
  })

  it('fails with what went wrong in the thread, and stops it: a document no longer where the store put it', async () => {
    const { raw, collections } = await frozenState()
    const folder = await tempFolder('bula-background-snapshot-')
    const short = path.join(folder, 'short.json')
    writeFileSync(short, '{"id":"cs_')
    // The last document on disk now points past the end of a file that was cut short.
    const lazy = collections[0]!
    const last = lazy.values.findLastIndex((value) => typeof value === 'number')
    raw.point(lazy.values[last] as number, raw.openOrigin(short), 0, 40)
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    await expect(textOf(there)).rejects.toThrow(/^the snapshot could not be rendered: .*short\.json changed while bula had it open/)
    expect(threads()).toBeLessThanOrEqual(before)
    raw.close()
  })
})
