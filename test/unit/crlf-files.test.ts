import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkState } from '../../server/state.js'
import { loadFixture, triggerFixturePath } from '../../src/fixtures/fixture.js'
import { readStateFile } from '../../src/state/state-file.js'
import { tempFolder } from '../helpers/temp.js'

// Files saved by an editor on Windows end their lines with CRLF; everything the CLI reads must take them (docs/platforms.md).
const withCrlf = (text: string): string => text.replace(/\r?\n/g, '\r\n')

describe('files with CRLF line ends', () => {
  it('reads a fixture file', async () => {
    const dir = await tempFolder('bula-crlf-')
    const file = path.join(dir, 'fixture.json')
    const original = await readFile(triggerFixturePath('checkout_session.succeeded'), 'utf8')
    await writeFile(file, withCrlf(original))
    expect(await loadFixture(file)).toEqual(await loadFixture(triggerFixturePath('checkout_session.succeeded')))
  })

  it('reads a merchant state file and a whole simulator state file', async () => {
    const dir = await tempFolder('bula-crlf-')
    const merchant = path.join(dir, 'merchant.json')
    await writeFile(merchant, withCrlf(JSON.stringify({ format: 'bula-state', version: 1, merchantId: 'ms_a', mode: 'test', collections: {} }, null, 2)))
    expect((await readStateFile(merchant)).merchantId).toBe('ms_a')
    const whole = withCrlf(JSON.stringify({ format: 'bula-state', version: 1, collections: { merchants: [] } }, null, 2))
    expect(checkState(JSON.parse(whole), 'state.json', []).collections).toEqual({ merchants: [] })
  })
})
