import { closeSync, writeFileSync } from 'node:fs'
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
})
