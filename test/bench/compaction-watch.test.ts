import { appendFile, truncate, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { journalBytes, watchCompactions } from '../../bench/compaction-watch.mjs'
import { tempFolder } from '../helpers/temp.js'

// The bench marks a create run in which a compaction ended: the journal was cut short while it ran.
describe('the bench compaction watch', () => {
  it('reads the journal size, 0 before there is a journal', async () => {
    const dataFile = path.join(await tempFolder('bula-watch-'), 'data.json')
    expect(await journalBytes(dataFile)).toBe(0)
    await writeFile(`${dataFile}.journal`, 'x'.repeat(10))
    expect(await journalBytes(dataFile)).toBe(10)
  })

  it('answers false while the journal only grows, true once it was cut short', async () => {
    const dataFile = path.join(await tempFolder('bula-watch-'), 'data.json')
    await writeFile(`${dataFile}.journal`, 'x'.repeat(1000))
    const growing = watchCompactions(dataFile, 5)
    await sleep(20)
    await appendFile(`${dataFile}.journal`, 'y'.repeat(1000))
    await sleep(20)
    expect(await growing.stop()).toBe(false)

    const cut = watchCompactions(dataFile, 5)
    await sleep(20)
    await truncate(`${dataFile}.journal`, 100)
    await sleep(20)
    await appendFile(`${dataFile}.journal`, 'z'.repeat(5000))
    // Longer again by the end of the run than at its start: the cut in between still counts.
    expect(await cut.stop()).toBe(true)
  })
})
