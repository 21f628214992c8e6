import { readdirSync } from 'node:fs'
import { mkdir, readFile, rmdir, stat, writeFile, type FileHandle } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import type { SnapshotData } from '../../server/store/document-state.js'
import { StoreWriteError } from '../../server/store/index.js'
import { journalContentOf } from '../../server/store/journal-file.js'
import { journalLines, journalText, openTestStore, payment, tempDataFile } from './temp-store.js'

/** What the next journal operation should do instead of its real work. */
interface Sabotage {
  /**
   * write: throws ENOSPC; 'partial' first writes half of the bytes for real;
   * 'eio' throws EIO, as a disk that cannot make the bytes durable does (the
   * journal is opened with O_DSYNC, so the write is also the sync).
   */
  write?: 'fail' | 'partial' | 'eio'
  /** A disk nearly full: a write of more than this many bytes throws ENOSPC. */
  roomBytes?: number
  /** datasync, where the system has no O_DSYNC: throws EIO. */
  datasync?: 'fail'
  /** write waits for this before it does its real work. */
  writeGate?: Promise<void>
}

/** The journal's real file handle, with writes and syncs that fail or stall when the test says so. */
function sabotaged(sabotage: Sabotage) {
  return (handle: FileHandle): FileHandle =>
    new Proxy(handle, {
      get(target, property) {
        if (property === 'write' && sabotage.write) {
          const mode = sabotage.write
          return async (buffer: Buffer, offset: number, length: number, position: number) => {
            if (mode === 'partial') await target.write(buffer, offset, Math.floor(length / 2), position)
            if (mode === 'eio') throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' })
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
          }
        }
        if (property === 'write' && sabotage.roomBytes !== undefined) {
          const room = sabotage.roomBytes
          return async (buffer: Buffer, offset: number, length: number, position: number) => {
            if (length > room) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
            return target.write(buffer, offset, length, position)
          }
        }
        if (property === 'write' && sabotage.writeGate) {
          const gate = sabotage.writeGate
          return async (buffer: Buffer, offset: number, length: number, position: number) => {
            await gate
            return target.write(buffer, offset, length, position)
          }
        }
        if (property === 'datasync' && sabotage.datasync) {
          return async () => {
            throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
          }
        }
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
}

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true),
  )
  await new Promise((resolve) => setTimeout(resolve, 20))
  return done
}

describe('group commit', () => {
  it('writes the changes of many concurrent committers in fewer journal writes than commits', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    let commits = 0
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let n = 0; n < 25; n++) {
          store.put('payments', payment(`w${worker}-${n}`, `m${worker}`))
          await store.commit()
          commits++
        }
      }),
    )
    const writes = (await journalLines(file)).length
    expect(commits).toBe(200)
    expect(writes).toBeLessThan(commits / 2)
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('payments')).toBe(200)
    expect(reopened.group('payments', 'byMerchant', 'm3')).toEqual(Array.from({ length: 25 }, (_, n) => `w3-${n}`))
    await reopened.close()
  })

  it('makes a commit with nothing pending wait for the write in flight, and puts changes made meanwhile in the next write', async () => {
    const file = await tempDataFile()
    let release = () => {}
    const sabotage: Sabotage = { writeGate: new Promise<void>((resolve) => (release = resolve)) }
    const { store } = await openTestStore(file, {}, { journalHandle: sabotaged(sabotage) })
    store.put('notes', { id: 'n1', text: 'first' })
    const first = store.commit()
    // The write starts once this turn of the event loop is over; then it is in flight, held at the gate.
    await new Promise((resolve) => setImmediate(resolve))
    const nothingPending = store.commit()
    store.put('notes', { id: 'n2', text: 'second' })
    const second = store.commit()
    expect(await settled(nothingPending)).toBe(false)
    release()
    await Promise.all([first, nothingPending, second])
    expect(await journalLines(file)).toEqual([
      '{"v":1,"ops":[["put","notes","n1",{"id":"n1","text":"first"}]]}',
      '{"v":1,"ops":[["put","notes","n2",{"id":"n2","text":"second"}]]}',
    ])
    // Nothing pending and nothing in flight: at once.
    await store.commit()
    await store.close()
  })

  it('writes the commits made in one turn of the event loop as one line', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file)
    store.put('notes', { id: 'n1', text: 'first' })
    const first = store.commit()
    store.put('notes', { id: 'n2', text: 'second' })
    await Promise.all([first, store.commit()])
    expect(await journalLines(file)).toEqual(['{"v":1,"ops":[["put","notes","n1",{"id":"n1","text":"first"}],["put","notes","n2",{"id":"n2","text":"second"}]]}'])
    await store.close()
  })
})

describe('the journal file', () => {
  it('grows a mebibyte of zeros at a time, written with the line that needs them, and reads back every line', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file, { journalThresholdBytes: 64 << 20 })
    const sizes: number[] = []
    // 300 KiB lines: the fourth passes the first mebibyte; then one line longer than a mebibyte on its own.
    for (const [n, bytes] of [300, 300, 300, 300, 1_500].map((kib, n) => [n, kib << 10] as const)) {
      store.put('notes', { id: `n${n}`, text: 'x'.repeat(bytes) })
      await store.commit()
      sizes.push((await stat(`${file}.journal`)).size)
    }
    expect(sizes).toEqual([1, 1, 1, 2, 3].map((mib) => mib << 20))
    expect((await journalLines(file)).map((line) => JSON.parse(line).ops[0][2])).toEqual(['n0', 'n1', 'n2', 'n3', 'n4'])
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect([...reopened.values('notes')].map((note) => note.text.length)).toEqual([300, 300, 300, 300, 1_500].map((kib) => kib << 10))
    await reopened.close()
  })

  it('writes the line alone when the disk has no room for a new extent, and goes on taking lines as long as each fits', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file, {}, { journalHandle: sabotaged({ roomBytes: 64 * 1024 }) })
    for (const id of ['n1', 'n2']) {
      store.put('notes', { id, text: 'x'.repeat(1000) })
      await store.commit()
    }
    // No zeros after the lines: the file is exactly as long as they are.
    expect((await stat(`${file}.journal`)).size).toBe(Buffer.byteLength(await journalText(file)))
    expect((await journalLines(file)).map((line) => JSON.parse(line).ops[0][2])).toEqual(['n1', 'n2'])
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('notes')).toBe(2)
    await reopened.close()
  })
})

describe('compaction', () => {
  it('writes a snapshot and empties the journal once it passes the threshold', async () => {
    const file = await tempDataFile()
    const warnings: string[] = []
    const { store } = await openTestStore(file, { journalThresholdBytes: 2_000, warn: (message) => warnings.push(message) })
    for (let n = 0; n < 100; n++) {
      store.put('payments', payment(`p${n}`, n % 2 ? 'm1' : 'm2'))
      await store.commit()
      // Compaction runs beside the commits; once it is done, the journal holds only what came after its snapshot.
      await store.compacted()
      // The line that passes the threshold is written before the snapshot, so the journal may hold that one line more.
      expect((await journalText(file)).length).toBeLessThanOrEqual(2_200)
    }
    const snapshot = JSON.parse(await readFile(file, 'utf8'))
    expect(Object.keys(snapshot.collections.payments).length).toBeGreaterThan(80)
    const journalIds = (await journalLines(file)).map((line) => JSON.parse(line).ops[0][2])
    // The snapshot plus the journal hold all of it.
    expect(new Set([...Object.keys(snapshot.collections.payments), ...journalIds]).size).toBe(100)
    expect(warnings).toEqual([])
    const before = [...store.group('payments', 'byMerchant', 'm1')]
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('payments')).toBe(100)
    expect(reopened.group('payments', 'byMerchant', 'm1')).toEqual(before)
    await reopened.close()
  })

  it('keeps the commits made while a compaction runs, in the journal that replaces the old one', async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file, { journalThresholdBytes: 64 * 1024 })
    // Enough documents that each snapshot takes a while to write, so commits arrive during every step of it.
    for (let n = 0; n < 5_000; n++) store.put('notes', { id: `n${n}`, text: 'x'.repeat(200) })
    await store.commit()
    // The notes' line starts a compaction of its own. Once it is over, the payments' commits start the next ones, so the
    // last snapshot holds payments however slow the machine: a compaction that outlasted every commit left the notes'
    // snapshot last, with no payment to check (CI, 27 November).
    await store.compacted()
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let n = 0; n < 300; n++) {
          store.put('payments', payment(`w${worker}-${n}`, `m${worker}`))
          await store.commit()
        }
      }),
    )
    await store.compacted()
    // What a process killed now leaves: the last snapshot and the journal that replaced the old one.
    const leftBehind = { snapshot: await readFile(file), journal: await readFile(`${file}.journal`) }
    // The journal holds only what came after the snapshot: no payment in both (each was put once).
    const inSnapshot = new Set(Object.keys((JSON.parse(leftBehind.snapshot.toString('utf8')) as SnapshotData).collections.payments ?? {}))
    const inJournal = (await journalLines(file)).flatMap((line) => (JSON.parse(line) as { ops: [string, string, string][] }).ops.map((op) => op[2]))
    expect(inSnapshot.size).toBeGreaterThan(0)
    expect(inJournal.filter((id) => inSnapshot.has(id))).toEqual([])
    // Nor the notes' line of over a megabyte, which only the first snapshot holds.
    expect(journalContentOf(leftBehind.journal).length).toBeLessThan(2_400 * 200)
    await store.close()
    await writeFile(file, leftBehind.snapshot)
    await writeFile(`${file}.journal`, leftBehind.journal)
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('payments')).toBe(2_400)
    for (let worker = 0; worker < 8; worker++) {
      expect(reopened.group('payments', 'byMerchant', `m${worker}`)).toEqual(Array.from({ length: 300 }, (_, n) => `w${worker}-${n}`))
    }
    expect(reopened.size('notes')).toBe(5_000)
    await reopened.close()
  })

  it("renders a compaction's snapshot in a thread of its own, started for it and stopped after it", async () => {
    const file = await tempDataFile()
    const { store } = await openTestStore(file, { journalThresholdBytes: 64 * 1024 })
    const threads = (): number => readdirSync('/proc/self/task').length
    const before = threads()
    for (let n = 0; n < 1_000; n++) store.put('notes', { id: `n${n}`, text: 'x'.repeat(100) })
    // Past the threshold: the snapshot is frozen in this commit's write, and its thread starts once the line is on disk.
    await store.commit()
    await expect.poll(threads, { interval: 1 }).toBeGreaterThan(before)
    await store.compacted()
    expect(threads()).toBeLessThanOrEqual(before)
    expect(JSON.parse(await readFile(file, 'utf8')).collections.notes).toHaveProperty('n999')
    store.put('notes', { id: 'last', text: 'y' })
    await store.commit()
    await store.close()
    expect(JSON.parse(await readFile(file, 'utf8')).collections.notes).toHaveProperty('last')
  })

  it('closes while a compaction runs without a warning, leaves no thread behind, and keeps everything in the final snapshot', async () => {
    const file = await tempDataFile()
    const warnings: string[] = []
    const { store } = await openTestStore(file, { journalThresholdBytes: 64 * 1024, warn: (message) => warnings.push(message) })
    const threads = (): number => readdirSync('/proc/self/task').length
    const before = threads()
    for (let n = 0; n < 5_000; n++) store.put('notes', { id: `n${n}`, text: 'x'.repeat(200) })
    await store.commit()
    store.put('notes', { id: 'after', text: 'y' })
    await store.close()
    expect(threads()).toBeLessThanOrEqual(before)
    expect(warnings).toEqual([])
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('notes')).toBe(5_001)
    expect(reopened.get('notes', 'after')).toEqual({ id: 'after', text: 'y' })
    await reopened.close()
  })

  it('keeps every change in the journal when the snapshot cannot be written, and tries again later', async () => {
    const file = await tempDataFile()
    const warnings: string[] = []
    const { store } = await openTestStore(file, { journalThresholdBytes: 1_000, warn: (message) => warnings.push(message) })
    // A folder where the snapshot's temp file goes makes every snapshot write fail, for real.
    await mkdir(`${file}.tmp`)
    // Lines are about 100 bytes: the first try comes near line 10, the next one only a threshold later.
    for (let n = 0; n < 15; n++) {
      store.put('payments', payment(`p${n}`))
      await store.commit()
    }
    await store.compacted()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/Could not compact .*data\.json .*keeps every change/)
    expect((await journalLines(file)).length).toBe(15)
    await rmdir(`${file}.tmp`)
    for (let n = 15; n < 30; n++) {
      store.put('payments', payment(`p${n}`))
      await store.commit()
    }
    await store.compacted()
    expect(warnings).toHaveLength(1)
    expect((await journalLines(file)).length).toBeLessThan(15)
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('payments')).toBe(30)
    await reopened.close()
  })
})

describe('write failures', () => {
  for (const [what, sabotage, withoutDsync] of [
    ['a write that fails', { write: 'fail' }, false],
    ['a write that fails half-way', { write: 'partial' }, false],
    ['a write that cannot be made durable (EIO)', { write: 'eio' }, false],
    ['an fdatasync that fails (systems without O_DSYNC)', { datasync: 'fail' }, true],
  ] as const) {
    it(`rejects the commit on ${what}, keeps the store usable and persists the changes with the next commit`, async () => {
      const file = await tempDataFile()
      const current: Sabotage = {}
      const { store } = await openTestStore(file, {}, { journalHandle: sabotaged(current), withoutDsync })
      store.put('payments', payment('a'))
      await store.commit()
      Object.assign(current, sabotage)
      store.put('payments', payment('b'))
      store.delete('payments', 'a')
      const failed = store.commit()
      await expect(failed).rejects.toBeInstanceOf(StoreWriteError)
      // The API's 503 for every surface; the disk's reason (with the path) only for the log.
      await expect(failed).rejects.toMatchObject({ status: 503, code: 'storage_unavailable', reason: expect.stringMatching(/data\.json\.journal .*not durable/) })
      expect(store.get('payments', 'b')).toBeDefined()

      // Still failing: the retry fails as well, and nothing is dropped.
      store.put('payments', payment('c'))
      await expect(store.commit()).rejects.toBeInstanceOf(StoreWriteError)

      delete current.write
      delete current.datasync
      store.put('payments', payment('d'))
      await store.commit()
      const lines = await journalLines(file)
      expect(lines.map((line) => JSON.parse(line).ops.map((op: string[]) => `${op[0]} ${op[2]}`))).toEqual([
        ['put a'],
        ['put b', 'del a', 'put c', 'put d'],
      ])
      await store.close()
      const { store: reopened } = await openTestStore(file)
      expect([...reopened.values('payments')].map((p) => p.id).sort()).toEqual(['b', 'c', 'd'])
      await reopened.close()
    })
  }

  it('rejects close while the pending changes cannot be written, and stays open to try again', async () => {
    const file = await tempDataFile()
    const current: Sabotage = { write: 'fail' }
    const { store } = await openTestStore(file, {}, { journalHandle: sabotaged(current) })
    store.put('payments', payment('a'))
    await expect(store.close()).rejects.toBeInstanceOf(StoreWriteError)
    store.put('payments', payment('b'))
    delete current.write
    await store.close()
    const { store: reopened } = await openTestStore(file)
    expect(reopened.size('payments')).toBe(2)
    await reopened.close()
  })
})
