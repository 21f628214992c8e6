import { createHash } from 'node:crypto'
import { chmod, open, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { StoreOpenError, openStore, type Store } from '../../server/store/index.js'
import { expectMode } from '../helpers/platform.js'
import { journalContentOf } from '../../server/store/journal-file.js'
import { journalLines, journalText, openTestStore, payment, tempDataFile, type TestSchema } from './temp-store.js'

/** Every observable fact the tests rely on, in one comparable value. */
function contents(store: Store<TestSchema>) {
  return {
    payments: [...store.values('payments')].sort((a, b) => a.id.localeCompare(b.id)),
    notes: [...store.values('notes')].sort((a, b) => a.id.localeCompare(b.id)),
    m1: [...store.group('payments', 'byMerchant', 'm1')],
    m2: [...store.group('payments', 'byMerchant', 'm2')],
    open: [...store.group('payments', 'byStatus', 'open')],
    paid: [...store.group('payments', 'byStatus', 'paid')],
  }
}

/** A history where group order differs from document order and ids look like array indexes. */
function makeHistory(store: Store<TestSchema>): void {
  for (const id of ['p3', '20', 'p1', '3', 'p2']) store.put('payments', payment(id))
  store.put('payments', payment('p3', 'm2')) // moves to the end of m2, stays where it was in `open`
  store.put('payments', payment('20', 'm1', 'paid')) // moves in `byStatus` only
  store.put('payments', payment('p1', 'm2'))
  store.put('payments', payment('p3', 'm1')) // back to m1: now the last of m1
  store.put('payments', { ...payment('p2'), reference: 'ref-renamed' })
  store.delete('payments', '3')
  store.put('notes', { id: 'n1', text: 'kept' })
  store.put('notes', { id: 'n2', text: 'deleted' })
  store.delete('notes', 'n2')
}

describe('store semantics (memory mode)', () => {
  it('puts, gets, deletes, counts and iterates documents', async () => {
    const { store, fresh } = await openTestStore(undefined)
    expect(fresh).toBe(true)
    expect(store.file).toBeNull()
    store.put('payments', payment('a'))
    store.put('payments', payment('b'))
    store.put('payments', { ...payment('a'), status: 'paid' })
    expect(store.get('payments', 'a')?.status).toBe('paid')
    expect(store.size('payments')).toBe(2)
    expect([...store.values('payments')].map((p) => p.id)).toEqual(['a', 'b'])
    store.delete('payments', 'a')
    store.delete('payments', 'never-there')
    expect(store.get('payments', 'a')).toBeUndefined()
    expect(store.size('payments')).toBe(1)
    expect(store.size('notes')).toBe(0)
    await expect(store.commit()).resolves.toBeUndefined()
  })

  it('keeps unique lookups in step with puts and deletes', async () => {
    const { store } = await openTestStore(undefined)
    store.put('payments', payment('a'))
    expect(store.lookup('payments', 'byReference', 'ref-a')?.id).toBe('a')
    store.put('payments', { ...payment('a'), reference: 'ref-new' })
    expect(store.lookup('payments', 'byReference', 'ref-a')).toBeUndefined()
    expect(store.lookup('payments', 'byReference', 'ref-new')?.id).toBe('a')
    // A conflicting key simply points at the newest document.
    store.put('payments', { ...payment('b'), reference: 'ref-new' })
    expect(store.lookup('payments', 'byReference', 'ref-new')?.id).toBe('b')
    store.delete('payments', 'a')
    expect(store.lookup('payments', 'byReference', 'ref-new')?.id).toBe('b')
    store.delete('payments', 'b')
    expect(store.lookup('payments', 'byReference', 'ref-new')).toBeUndefined()
  })

  it('keeps groups in insertion order: a put keeps the position, a key change moves to the end, a delete removes', async () => {
    const { store } = await openTestStore(undefined)
    for (const id of ['a', 'b', 'c']) store.put('payments', payment(id))
    store.put('payments', { ...payment('a'), reference: 'x' })
    expect(store.group('payments', 'byMerchant', 'm1')).toEqual(['a', 'b', 'c'])
    store.put('payments', payment('a', 'm2'))
    store.put('payments', payment('a', 'm1'))
    expect(store.group('payments', 'byMerchant', 'm1')).toEqual(['b', 'c', 'a'])
    store.delete('payments', 'c')
    expect(store.group('payments', 'byMerchant', 'm1')).toEqual(['b', 'a'])
    expect(store.group('payments', 'byMerchant', 'm2')).toEqual([])
    expect(store.group('payments', 'byMerchant', 'nobody')).toEqual([])
  })

  it('indexes by the key a document was put with, even if the caller later changes that object', async () => {
    const { store } = await openTestStore(undefined)
    const reused = payment('a')
    store.put('payments', reused)
    reused.merchant = 'm2'
    store.put('payments', reused)
    expect(store.group('payments', 'byMerchant', 'm1')).toEqual([])
    expect(store.group('payments', 'byMerchant', 'm2')).toEqual(['a'])
  })

  it('refuses unknown collections and indexes, ids that are not strings, and puts after close', async () => {
    const { store } = await openTestStore(undefined)
    const untyped = store as unknown as Store<Record<string, { id: string }>>
    expect(() => untyped.get('nope', 'x')).toThrow(/Unknown collection "nope"/)
    expect(() => store.lookup('payments', 'nope', 'x')).toThrow(/no unique index "nope"/)
    expect(() => store.group('payments', 'nope', 'x')).toThrow(/no group index "nope"/)
    expect(() => store.put('payments', { ...payment('a'), id: '' })).toThrow(TypeError)
    await store.close()
    await store.close()
    expect(() => store.put('payments', payment('a'))).toThrow(/closed/)
  })
})

describe('store on disk', () => {
  it('restores documents, lookups and group order after reopen', async () => {
    const file = await tempDataFile()
    const memory = await openTestStore(undefined)
    makeHistory(memory.store)

    const first = await openTestStore(file)
    expect(first.fresh).toBe(true)
    makeHistory(first.store)
    await first.store.commit()
    const expected = contents(memory.store)
    expect(contents(first.store)).toEqual(expected)
    expect(expected.m1).toEqual(['20', 'p2', 'p3'])

    await first.store.close()

    const second = await openTestStore(file)
    expect(second.fresh).toBe(false)
    expect(contents(second.store)).toEqual(expected)
    expect(second.store.lookup('payments', 'byReference', 'ref-renamed')?.id).toBe('p2')
    expect(second.store.lookup('payments', 'byReference', 'ref-p2')).toBeUndefined()
    await second.store.close()
  })

  it('replays the journal when the process stopped without close', async () => {
    const file = await tempDataFile()
    const memory = await openTestStore(undefined)
    makeHistory(memory.store)
    const { store } = await openTestStore(file)
    makeHistory(store)
    await store.commit()
    // What a killed process leaves: snapshot from start-up, the journal, and the lock.
    const leftBehind = { snapshot: await readFile(file), journal: await readFile(`${file}.journal`) }
    await store.close()
    await writeFile(file, leftBehind.snapshot)
    await writeFile(`${file}.journal`, leftBehind.journal)
    await writeFile(`${file}.lock`, '999999999\n')

    const reopened = await openTestStore(file)
    expect(contents(reopened.store)).toEqual(contents(memory.store))
    // Start-up leaves a readable snapshot holding everything and an empty journal.
    expect(await readFile(`${file}.journal`, 'utf8')).toBe('')
    const snapshot = JSON.parse(await readFile(file, 'utf8'))
    expect(snapshot).toMatchObject({ format: 'bula-data', version: 1 })
    expect(Object.keys(snapshot.collections.payments).sort()).toEqual(['20', 'p1', 'p2', 'p3'])
    await reopened.store.close()
  })

  it('writes the snapshot and journal formats of docs/storage.md', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    store.put('notes', { id: 'n1', text: 'one' })
    store.put('notes', { id: 'n2', text: 'two' })
    store.delete('notes', 'n1')
    await store.commit()
    store.put('notes', { id: 'n3', text: 'three' })
    await store.commit()
    const journalFile = await readFile(`${file}.journal`)
    const journal = Buffer.from(await journalText(file))
    expect(journal.toString()).toBe(
      '{"v":1,"ops":[["put","notes","n1",{"id":"n1","text":"one"}],["put","notes","n2",{"id":"n2","text":"two"}],["del","notes","n1"]]}\n' +
        '{"v":1,"ops":[["put","notes","n3",{"id":"n3","text":"three"}]]}\n',
    )
    // Then zeros to the end of its first mebibyte, which the next lines overwrite.
    expect(journalFile.length).toBe(1 << 20)
    expect(journalFile.subarray(journal.length).every((byte) => byte === 0)).toBe(true)
    await store.close()
    expect(await readFile(`${file}.journal`, 'utf8')).toBe('')
    const text = await readFile(file, 'utf8')
    expect(text).toContain('\n  "format": "bula-data",\n')
    // The last member checks every byte before its line: length and CRC-32.
    const checked = text.lastIndexOf('\n  "check": ') + 1
    expect(JSON.parse(text)).toEqual({
      format: 'bula-data',
      version: 1,
      collections: { payments: {}, notes: { n2: { id: 'n2', text: 'two' }, n3: { id: 'n3', text: 'three' } } },
      groups: { payments: { byMerchant: {}, byStatus: {} } },
      // The start-up snapshot contained the whole (then empty) journal; this one too, as close truncates it.
      journal: { bytes: 193, sha256: createHash('sha256').update(journal).digest('hex') },
      check: { bytes: checked, crc32: crc32(text.slice(0, checked)) },
    })
  })

  it('journals each change as it was when put, even if the caller reuses the object', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    const note = { id: 'n1', text: 'first' }
    store.put('notes', note)
    note.text = 'changed without a put'
    await store.commit()
    expect(await journalLines(file)).toEqual(['{"v":1,"ops":[["put","notes","n1",{"id":"n1","text":"first"}]]}'])
    await store.close()
  })

  it('creates a missing folder with mode 0700 and its files with mode 0600', async () => {
    const file = path.join(path.dirname(await tempDataFile()), 'new', '.bula', 'data.json')
    const { store } = await openTestStore(file)
    await expectMode(path.dirname(file), 0o700)
    await expectMode(file, 0o600)
    await expectMode(`${file}.journal`, 0o600)
    await expectMode(`${file}.lock`, 0o600)
    store.put('notes', { id: 'n1', text: 'x' })
    await store.close()
    await expectMode(file, 0o600)
    await expect(stat(`${file}.lock`)).rejects.toThrow(/ENOENT/)
  })

  it('tightens existing files to mode 0600', async () => {
    const file = await tempDataFile()
    await (await openTestStore(file)).store.close()
    await chmod(file, 0o644)
    await chmod(`${file}.journal`, 0o666)
    const { store } = await openTestStore(file)
    await expectMode(file, 0o600)
    await expectMode(`${file}.journal`, 0o600)
    await store.close()
  })

  it('is fresh only when neither a snapshot nor a journal held data; a journal alone is refused', async () => {
    const file = await tempDataFile()
    const first = await openTestStore(file)
    expect(first.fresh).toBe(true)
    await first.store.close()
    const second = await openTestStore(file)
    expect(second.fresh).toBe(false)
    second.store.put('notes', { id: 'n1', text: 'x' })
    await second.store.commit()
    const journal = await readFile(`${file}.journal`)
    await second.store.close()
    await rm(file)
    await writeFile(`${file}.journal`, journal)
    // Changes whose snapshot was lost (refusals.test.ts): neither fresh nor data to open.
    await expect(openTestStore(file)).rejects.toThrow(StoreOpenError)
  })

  it('keeps collections the file has but the code no longer declares', async () => {
    const file = await tempDataFile()
    const old = await openStore<{ legacy: { id: string } }>({ file, collections: ['legacy'] })
    old.store.put('legacy', { id: 'l1' })
    await old.store.close()
    const current = await openTestStore(file)
    current.store.put('notes', { id: 'n1', text: 'x' })
    await current.store.close()
    const again = await openStore<{ legacy: { id: string } }>({ file, collections: ['legacy'] })
    expect(again.store.get('legacy', 'l1')).toEqual({ id: 'l1' })
    await again.store.close()
  })

  it('ignores group order in the file that no longer matches the documents', async () => {
    const file = await tempDataFile()
    const first = await openTestStore(file)
    for (const id of ['a', 'b', 'c']) first.store.put('payments', payment(id))
    await first.store.close()
    // Edited by hand: b deleted, c moved to m2, a stale id in the group order.
    const data = JSON.parse(await readFile(file, 'utf8'))
    delete data.collections.payments.b
    data.collections.payments.c.merchant = 'm2'
    data.groups.payments.byMerchant.m1.unshift('ghost')
    await writeFile(file, JSON.stringify(data))
    const { store } = await openTestStore(file)
    expect(store.group('payments', 'byMerchant', 'm1')).toEqual(['a'])
    expect(store.group('payments', 'byMerchant', 'm2')).toEqual(['c'])
    expect(store.group('payments', 'byStatus', 'open')).toEqual(['a', 'c'])
    await store.close()
  })
})

describe('a crash between a snapshot and the truncation of the journal', () => {
  /**
   * Leaves what that crash leaves: a snapshot that already contains the
   * journal next to it. Replaying these ops again would move `m` behind `n`
   * in `paid`; the snapshot's journal coverage makes start-up skip them.
   */
  async function snapshotBesideItsJournal(): Promise<{ file: string; journal: Buffer }> {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    store.put('payments', payment('m', 'm1', 'open'))
    await store.commit()
    store.put('payments', payment('m', 'm1', 'paid'))
    await store.commit()
    store.put('payments', payment('n', 'm1', 'paid'))
    await store.commit()
    const journalFile = await readFile(`${file}.journal`)
    await store.close()
    // As a crash after the snapshot left it: its lines, then the zeros of its extent.
    await writeFile(`${file}.journal`, journalFile)
    return { file, journal: journalContentOf(journalFile) }
  }

  it('does not replay what the snapshot already contains', async () => {
    const { file } = await snapshotBesideItsJournal()
    const { store } = await openTestStore(file)
    expect(store.group('payments', 'byStatus', 'paid')).toEqual(['m', 'n'])
    await store.close()
  })

  it('replays only what follows the contained part (a truncation that failed)', async () => {
    const { file, journal } = await snapshotBesideItsJournal()
    // Where the journal writes its next line: over the zeros after the last one.
    const handle = await open(`${file}.journal`, 'r+')
    await handle.write(`${JSON.stringify({ v: 1, ops: [['put', 'payments', 'o', payment('o', 'm1', 'paid')]] })}\n`, journal.length)
    await handle.close()
    const { store } = await openTestStore(file)
    expect(store.group('payments', 'byStatus', 'paid')).toEqual(['m', 'n', 'o'])
    await store.close()
  })

  it('replays the whole journal when it is not the one the snapshot contains', async () => {
    const { file, journal } = await snapshotBesideItsJournal()
    const other = Buffer.from(journal.toString().replace('"status":"open"', '"status":"void"'))
    await writeFile(`${file}.journal`, other)
    const { store } = await openTestStore(file)
    expect(store.group('payments', 'byStatus', 'void')).toEqual([])
    // Replayed over the newer state, `m` left `paid` and came back behind `n`: the reordering coverage avoids.
    expect(store.group('payments', 'byStatus', 'paid')).toEqual(['n', 'm'])
    await store.close()
  })
})
