import { readdirSync, writeFileSync } from 'node:fs'
import { open, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BackgroundSnapshot } from '../../server/store/background-snapshot.js'
import { RawDocs } from '../../server/store/raw-docs.js'
import { SnapshotRenderer, type FrozenCollection, type JournalCoverage, type SnapshotSource } from '../../server/store/snapshot-render.js'
import { tempFolder } from '../helpers/temp.js'

const journal: JournalCoverage = { bytes: 1234, sha256: 'ab'.repeat(32) }

/** The whole text of a snapshot, as written into a file of `folder`. */
async function textOf(source: SnapshotSource, folder: string): Promise<Buffer> {
  const file = path.join(folder, `written-${Math.random()}`)
  const handle = await open(file, 'wx')
  try {
    await source.writeTo(handle)
  } finally {
    await handle.close()
  }
  return readFile(file)
}

/** Threads of this process: the render thread is one while it runs. */
const threads = (): number => readdirSync('/proc/self/task').length

/**
 * A frozen state as a store has it: a lazy collection of 25,000 documents,
 * two in three of them on disk in `file` and the rest as text, in two groups
 * of more ids than one message takes; a collection of parsed documents,
 * more than one message's worth; and an empty one.
 */
async function frozenState(documents = 25_000): Promise<{ folder: string; raw: RawDocs; collections: FrozenCollection[] }> {
  const folder = await tempFolder('bula-background-snapshot-')
  const file = path.join(folder, 'origin.json')
  const texts = Array.from({ length: documents }, (_, n) => JSON.stringify({ id: `cs_${n}`, amount: n * 7, note: `Nadi, "Bula" ✓ ${n}` }))
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
  return { folder, raw, collections }
}

describe('BackgroundSnapshot', () => {
  it('writes from a thread of its own the very text, length and document places this thread writes, then stops the thread', async () => {
    const { folder, raw, collections } = await frozenState()
    const here = new SnapshotRenderer(collections, journal, raw.reader())
    const expected = await textOf(here, folder)
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    const writing = textOf(there, folder)
    await expect.poll(threads, { interval: 1 }).toBeGreaterThan(before)
    const actual = await writing
    expect(actual.length).toBe(expected.length)
    expect(actual.equals(expected)).toBe(true)
    expect(there.bytes).toBe(here.bytes)
    expect(Array.from(there.lazySpans.offsets)).toEqual(here.lazySpans.offsets)
    expect(Array.from(there.lazySpans.lengths)).toEqual(here.lazySpans.lengths)
    expect(here.lazySpans.offsets).toHaveLength(25_000)
    // The places are where the documents are in the text.
    const at = 24_999
    expect(JSON.parse(actual.subarray(there.lazySpans.offsets[at], there.lazySpans.offsets[at]! + there.lazySpans.lengths[at]!).toString())).toMatchObject({ id: 'cs_24999' })
    // Once it is written, no thread is left behind.
    expect(threads()).toBeLessThanOrEqual(before)
    raw.close()
  })

  it('stops its thread before writeTo fails with the reason of abort(): nothing is written through the descriptor after', async () => {
    const { folder, raw, collections } = await frozenState(300_000)
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    const file = path.join(folder, 'aborted')
    const handle = await open(file, 'wx')
    const writing = there.writeTo(handle)
    // Cut short while the thread writes.
    await expect.poll(async () => (await stat(file)).size, { interval: 1 }).toBeGreaterThan(0)
    there.abort('the store is closing')
    await expect(writing).rejects.toThrow('the store is closing')
    expect(threads()).toBeLessThanOrEqual(before)
    const size = (await stat(file)).size
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect((await stat(file)).size).toBe(size)
    expect(size).toBeLessThan((await stat(path.join(folder, 'origin.json'))).size)
    await handle.close()
    raw.close()
  })

  it("fails with the system's error when the thread cannot write the file, and stops it", async () => {
    const { folder, raw, collections } = await frozenState()
    const file = path.join(folder, 'read-only')
    writeFileSync(file, '')
    // A descriptor open for reading only: every write through it fails (EBADF), as a full or failing disk's would.
    const handle = await open(file, 'r')
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    await expect(there.writeTo(handle)).rejects.toThrow(/^the snapshot could not be rendered: EBADF/)
    expect(threads()).toBeLessThanOrEqual(before)
    await handle.close()
    raw.close()
  })

  it('fails with what went wrong in the thread, and stops it: a document no longer where the store put it', async () => {
    const { folder, raw, collections } = await frozenState()
    const short = path.join(folder, 'short.json')
    writeFileSync(short, '{"id":"cs_')
    // The last document on disk now points past the end of a file that was cut short.
    const lazy = collections[0]!
    const last = lazy.values.findLastIndex((value) => typeof value === 'number')
    raw.point(lazy.values[last] as number, raw.openOrigin(short), 0, 40)
    const before = threads()
    const there = new BackgroundSnapshot(collections, journal, raw.table())
    await expect(textOf(there, folder)).rejects.toThrow(/^the snapshot could not be rendered: .*short\.json changed while bula had it open/)
    expect(threads()).toBeLessThanOrEqual(before)
    raw.close()
  })
})
