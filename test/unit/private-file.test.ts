import { execa } from 'execa'
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeStateFile } from '../../server/state.js'
import { COLLECTION_NAMES, type Collections } from '../../server/store/collections.js'
import { openStore } from '../../server/store/index.js'
import { writeOutputFile } from '../../src/cli/files.js'

let folder: string
beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'bula-private-file-'))
})
afterEach(async () => {
  await rm(folder, { recursive: true, force: true })
})

const modeOf = async (file: string): Promise<number> => (await stat(file)).mode & 0o777

// `bula state export /dev/null --force` or `bula serve --export-on-exit /dev/null`, run as root, made the system's /dev/null 0600.
describe('files that hold secrets are made 0600 only when they are regular files', () => {
  it('makes an overwritten regular file 0600 (state export --force, serve --export-on-exit)', async () => {
    const file = path.join(folder, 'state.json')
    await writeFile(file, 'old', { mode: 0o644 })
    await writeOutputFile(file, '{}', { force: true, param: 'file', secret: true })
    expect(await modeOf(file)).toBe(0o600)
    await writeFile(file, 'old', { mode: 0o644 })
    const { store } = await openStore<Collections>({ collections: COLLECTION_NAMES })
    await writeStateFile(store, file)
    await store.close()
    expect(await modeOf(file)).toBe(0o600)
  })

  // A device node of its own (a copy of /dev/null) needs root to make, as replacing the real one's mode did.
  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)('writes to a device but leaves its mode alone', async () => {
    const device = path.join(folder, 'null')
    await execa('mknod', ['-m', '666', device, 'c', '1', '3'])
    await writeOutputFile(device, '{}', { force: true, param: 'file', secret: true })
    expect(await modeOf(device)).toBe(0o666)
    const { store } = await openStore<Collections>({ collections: COLLECTION_NAMES })
    await writeStateFile(store, device)
    await store.close()
    expect(await modeOf(device)).toBe(0o666)
    expect((await stat(device)).isCharacterDevice()).toBe(true)
  })
})
