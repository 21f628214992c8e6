import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { RawDocs } from '../../server/store/raw-docs.js'
import { tempFolder } from '../helpers/temp.js'

describe('RawDocs', () => {
  it('lets go of the origins settle() does not keep in the background: settle() returns first, closed() waits for them', async () => {
    const folder = await tempFolder('bula-raw-docs-')
    const file = path.join(folder, 'snapshot.json')
    writeFileSync(file, '{"id":"a"}{"id":"b"}')
    const closing: { fd: number; done: () => void }[] = []
    const raw = new RawDocs((fd) => new Promise((resolve) => closing.push({ fd, done: () => (closeSync(fd), resolve()) })))
    const replaced = raw.openOrigin(file)
    const kept = raw.openOrigin(file)
    const a = raw.add(replaced, 0, 10)
    const b = raw.add(kept, 10, 10)
    raw.point(a, kept, 0, 10)

    raw.settle([kept])
    expect(closing).toHaveLength(1)
    expect(raw.read(a, 'a')).toEqual({ id: 'a' })
    expect(raw.read(b, 'b')).toEqual({ id: 'b' })
    let closed = false
    const waiting = raw.closed().then(() => (closed = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(closed).toBe(false)
    closing[0]!.done()
    await waiting
    expect(closed).toBe(true)
    raw.close()
  })

  it('walks a file with one read ahead, and never answers from it bytes written after it was read', async () => {
    const folder = await tempFolder('bula-raw-docs-')
    const file = path.join(folder, 'journal')
    const docs = Array.from({ length: 5 }, (_, n) => `{"id":"d${n}"}`)
    // The documents, then zeros as a journal's extent has them.
    writeFileSync(file, Buffer.concat([Buffer.from(docs.join('')), Buffer.alloc(4096)]))
    const raw = new RawDocs()
    const origin = raw.openOrigin(file)
    let offset = 0
    const entries = docs.map((doc) => {
      const entry = raw.add(origin, offset, doc.length)
      offset += doc.length
      return entry
    })
    expect(entries.map((entry, n) => raw.read(entry, `d${n}`))).toEqual(docs.map((doc) => JSON.parse(doc)))
    // A new line over the zeros that the walk read ahead: its document must come from the file, not the window.
    const later = '{"id":"d5"}'
    const fd = openSync(file, 'r+')
    writeSync(fd, later, offset)
    closeSync(fd)
    const entry = raw.add(origin, offset, later.length)
    expect(raw.read(entry, 'd5')).toEqual({ id: 'd5' })
    // Read by id, out of order: each its own document.
    expect(raw.read(entries[3]!, 'd3')).toEqual({ id: 'd3' })
    expect(raw.read(entries[1]!, 'd1')).toEqual({ id: 'd1' })
    raw.close()
    expect(() => raw.read(entries[2]!, 'd2')).toThrow(/closed/)
  })
})
