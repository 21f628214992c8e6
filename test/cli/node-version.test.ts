import { execaSync, execa } from 'execa'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BIN } from '../helpers/serve-process.js'

/** An end-of-life Node to start bula with: BULA_OLD_NODE, or the machine's own /usr/bin/node when it is older than 22 (Debian's Node 20 here and on CI). */
const oldNode = [process.env.BULA_OLD_NODE, '/usr/bin/node'].find((node): node is string => {
  if (!node || !existsSync(node)) return false
  const { stdout } = execaSync(node, ['--version'], { reject: false })
  return /^v(1\d|2[01])\./.test(stdout)
})

describe('an unsupported Node', () => {
  it.skipIf(!oldNode)('says which Node bula needs and which it found, and exits 1 before loading anything', async () => {
    const result = await execa(oldNode!, [BIN, '--version'], { reject: false })
    const found = execaSync(oldNode!, ['--version']).stdout.slice(1)
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`bula needs Node.js 22.12 or later (the supported lines are 22, 24 and 26); this is Node.js ${found}.`)
  })

  it('runs on this one', async () => {
    const result = await execa(process.execPath, [BIN, '--version'], { reject: false })
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain(`node-v${process.versions.node}`)
  })
})
