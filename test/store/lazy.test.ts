import { open, readdir, readFile, readlink, writeFile } from 'node:fs/promises'
import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { openStore, StoreOpenError } from '../../server/store/index.js'
import { tempDataFile } from './temp-store.js'

/** A lazy collection with a group index, as idempotency records are kept. */
interface Receipt {
  id: string
  owner: string
  body: string
}
type LazySchema = { receipts: Receipt; notes: { id: string; text: string } }

const openLazy = (file: string, options: { journalThresholdBytes?: number } = {}) =>
  openStore<LazySchema>({
    file,
    collections: ['receipts', 'notes'],
    indexes: { groups: { receipts: { byOwner: (receipt) => receipt.owner } } },
    lazy: ['receipts'],
    ...options,
  })

/** This process's open descriptors on `file` after it was replaced (Linux: /proc/self/fd). */
async function openDeletedFiles(file: string): Promise<string[]> {
  const targets = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')))
  return targets.filter((target) => target.startsWith(file) && target.endsWith('(deleted)'))
}

const receipt = (n: number, owner = `o${n % 3}`): Receipt => ({ id: `r${n}`, owner, body: `receipt "${n}" \u00e9 ${'x'.repeat(n % 50)}` })

async function fileWithReceipts(count: number): Promise<string> {
  const file = await tempDataFile()
  const { store } = await openLazy(file)
  for (let n = 0; n < count; n++) store.put('receipts', receipt(n))
  store.put('notes', { id: 'n1', text: 'eager' })
  await store.close()
  return file
}

describe('lazy collections', () => {
  it('reads documents left in the file on first use, in order and in their groups', async () => {
    const file = await fileWithReceipts(100)
    const { store } = await openLazy(file)
    expect(store.size('receipts')).toBe(100)
    expect(store.get('receipts', 'r42')).toEqual(receipt(42))
    expect(store.group('receipts', 'byOwner', 'o1')).toEqual(Array.from({ length: 33 }, (_, n) => `r${3 * n + 1}`))
    expect([...store.values('receipts')]).toEqual(Array.from({ length: 100 }, (_, n) => receipt(n)))
    await store.close()
  })

  it('leaves them unparsed at start-up: a change to the file under the open store shows when one is read', async () => {
    const file = await fileWithReceipts(10)
    const { store } = await openLazy(file)
    expect(store.get('notes', 'n1')?.text).toBe('eager')
    // Overwritten in place (a compaction renames a new file instead): the store still reads from this one.
    const text = await readFile(file, 'utf8')
    const handle = await open(file, 'r+')
    await handle.write(text.replace(/"id":"r7"/, '"id":"XX"'), 0)
    await handle.close()
    expect(store.get('receipts', 'r6')).toEqual(receipt(6))
    expect(() => store.get('receipts', 'r7')).toThrow(/changed while bula had it open: document "r7"/)
    await store.close().catch(() => undefined)
  })

  it('passes over their lines at start-up, and locates them when the collection is first read', async () => {
    const file = await fileWithReceipts(10)
    const { store } = await openLazy(file)
    // A line made into one that is not a document line, under the open store (its length kept): start-up never looked.
    const text = await readFile(file, 'utf8')
    const handle = await open(file, 'r+')
    await handle.write(text.replace('      "r5": ', '      +r5": '), 0)
    await handle.close()
    expect(store.get('notes', 'n1')?.text).toBe('eager')
    expect(() => store.get('receipts', 'r1')).toThrow(/changed while bula had it open: a line of "receipts" is no longer as it was written/)
    await expect(store.located()).rejects.toThrow(/a line of "receipts"/)
    await store.close().catch(() => undefined)
  })

  it('locates them in the background a slice at a time; a change in between locates the rest first', async () => {
    // More documents than one slice (5,000), so that the change comes between two.
    const count = 25_000
    const file = await fileWithReceipts(count)
    const { store } = await openLazy(file)
    const located = store.located()
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
    store.delete('receipts', 'r1')
    store.put('receipts', receipt(count, 'o1'))
    await located
    expect(store.size('receipts')).toBe(count)
    expect(store.get('receipts', 'r24999')).toEqual(receipt(24_999))
    const owned = store.group('receipts', 'byOwner', 'o1')
    expect(owned[0]).toBe('r4')
    expect(owned.at(-1)).toBe(`r${count}`)
    expect(owned).toHaveLength(Math.ceil((count - 1) / 3))
    const ids = [...store.values('receipts')].map((doc) => doc.id)
    expect(ids.slice(0, 2)).toEqual(['r0', 'r2'])
    expect(ids.at(-1)).toBe(`r${count}`)
    await store.close()
  })

  it('refuses a damaged document at start-up, as every other document: the file no longer matches its check', async () => {
    const file = await fileWithReceipts(10)
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace('{"id":"r3",', '{"id":"r3" '))
    const refusal = await openLazy(file).then(
      () => expect.fail('the open should have been refused'),
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(StoreOpenError)
    expect((refusal as Error).message).toMatch(/is not valid JSON/)
  })

  it('reads a file edited by hand (its check no longer matches) by parsing every document', async () => {
    const file = await fileWithReceipts(10)
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace('{"id":"r3","owner":"o0"', '{"id":"r3","owner":"o2"'))
    const { store } = await openLazy(file)
    expect(store.get('receipts', 'r3')?.owner).toBe('o2')
    // The saved order said o0; the document says o2, and wins.
    expect(store.group('receipts', 'byOwner', 'o0')).toEqual(['r0', 'r6', 'r9'])
    expect(store.group('receipts', 'byOwner', 'o2')).toEqual(['r2', 'r5', 'r8', 'r3'])
    await store.close()
  })

  it('copies unparsed documents into each new snapshot and reads them from there', async () => {
    const file = await fileWithReceipts(2_000)
    const { store } = await openLazy(file, { journalThresholdBytes: 4 * 1024 })
    expect(store.get('receipts', 'r5')).toEqual(receipt(5))
    store.delete('receipts', 'r6')
    for (let n = 0; n < 100; n++) {
      store.put('notes', { id: `n${n}`, text: 'y'.repeat(100) })
      await store.commit()
      await store.compacted()
    }
    // The file start-up read has been replaced by several snapshots since.
    const snapshot = JSON.parse(await readFile(file, 'utf8'))
    expect(Object.keys(snapshot.collections.receipts)).toHaveLength(1_999)
    expect(snapshot.collections.receipts.r1999).toEqual(receipt(1999))
    expect(store.get('receipts', 'r1999')).toEqual(receipt(1999))
    expect(store.get('receipts', 'r6')).toBeUndefined()
    // Nothing holds a replaced snapshot open, so its disk space is given back (checked where /proc shows it).
    if (process.platform === 'linux') expect(await openDeletedFiles(file)).toEqual([])
    await store.close()
    const { store: reopened } = await openLazy(file)
    expect([...reopened.values('receipts')]).toEqual(Array.from({ length: 2_000 }, (_, n) => receipt(n)).filter((doc) => doc.id !== 'r6'))
    await reopened.close()
  })

  it('leaves in the file what a compaction wrote: documents put since start-up are read back from there, changed ones as changed', async () => {
    const file = await tempDataFile()
    const { store } = await openLazy(file, { journalThresholdBytes: 4 * 1024 })
    for (let n = 0; n < 200; n++) {
      store.put('receipts', receipt(n))
      await store.commit()
    }
    await store.compacted()
    // Changed after the snapshot that holds the old version: the new one is what is read.
    store.put('receipts', { ...receipt(7), body: 'changed' })
    const read = store.get('receipts', 'r7')!
    expect(read.body).toBe('changed')
    // A copy each time: changing what get answered changes nothing stored.
    read.body = 'scribbled'
    expect(store.get('receipts', 'r7')?.body).toBe('changed')
    expect(store.get('receipts', 'r150')).toEqual(receipt(150))
    expect([...store.values('receipts')].filter((doc) => doc.id !== 'r7')).toEqual(Array.from({ length: 200 }, (_, n) => receipt(n)).filter((doc) => doc.id !== 'r7'))
    await store.close()
  })

  it('renders a collection over many chunks, whatever its ids, and reads every document back from the new snapshot', async () => {
    // Ids that JSON must escape, and over 512 KiB of documents: the renderer stops and resumes inside the collection.
    const odd = ['q"uote', 'back\\slash', 'caf\u00e9', 'tab\there', 'nul\u0000', 'sep\u2028']
    const large = (n: number): Receipt => ({ id: odd[n] ?? `r${n}`, owner: `o${n % 3}`, body: `${n} ${'z'.repeat(200 + (n % 7))}` })
    const file = await tempDataFile()
    const first = await openLazy(file)
    for (let n = 0; n < 3_000; n++) first.store.put('receipts', large(n))
    await first.store.close()
    // Most documents are now in the file, unparsed; those put next are text until the compaction writes them.
    const { store } = await openLazy(file, { journalThresholdBytes: 64 * 1024 })
    for (let n = 3_000; n < 3_500; n++) store.put('receipts', large(n))
    store.put('receipts', { ...large(1), body: 'changed' })
    await store.commit()
    await store.compacted()
    const expected = Array.from({ length: 3_500 }, (_, n) => (n === 1 ? { ...large(1), body: 'changed' } : large(n)))
    expect([...store.values('receipts')]).toEqual(expected)
    expect(store.get('receipts', 'q"uote')).toEqual(large(0))
    await store.close()
    const text = await readFile(file)
    const { check, collections } = JSON.parse(text.toString('utf8'))
    expect(Object.keys(collections.receipts)).toEqual(expected.map((doc) => doc.id))
    // The check line covers exactly the bytes before it, as written.
    expect(check).toEqual({ bytes: text.indexOf('\n  "check": ') + 1, crc32: crc32(text.subarray(0, check.bytes)) })
    const { store: reopened } = await openLazy(file)
    expect([...reopened.values('receipts')]).toEqual(expected)
    await reopened.close()
  })

  it('reads a document from its journal line once that is on disk, not from memory', async () => {
    const file = await tempDataFile()
    const { store } = await openLazy(file)
    store.put('receipts', receipt(1))
    await store.commit()
    // Changed in place under the open store: what is read shows where it comes from.
    const journal = await readFile(`${file}.journal`, 'utf8')
    const handle = await open(`${file}.journal`, 'r+')
    await handle.write(journal.replace('"id":"r1"', '"id":"r9"'), 0)
    await handle.close()
    expect(() => store.get('receipts', 'r1')).toThrow(/changed while bula had it open: document "r1"/)
    await store.close().catch(() => undefined)
  })

  it('keeps reading documents put while compactions run, from the journal that replaced the old one', async () => {
    const file = await tempDataFile()
    const { store } = await openLazy(file, { journalThresholdBytes: 16 * 1024 })
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let n = 0; n < 150; n++) {
          store.put('receipts', receipt(worker * 1_000 + n))
          await store.commit()
          // Read back at once, whatever the compactions did meanwhile.
          expect(store.get('receipts', `r${worker * 1_000 + n}`)).toEqual(receipt(worker * 1_000 + n))
        }
      }),
    )
    await store.compacted()
    for (let worker = 0; worker < 8; worker++) {
      for (let n = 0; n < 150; n++) expect(store.get('receipts', `r${worker * 1_000 + n}`)).toEqual(receipt(worker * 1_000 + n))
    }
    expect(store.size('receipts')).toBe(1_200)
    if (process.platform === 'linux') expect(await openDeletedFiles(file)).toEqual([])
    await store.close()
  })
})
