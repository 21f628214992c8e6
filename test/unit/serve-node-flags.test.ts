import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { missingServeFlags, SERVE_NODE_FLAGS } from '../../src/cli/serve-node-flags.js'
import { startServe } from '../helpers/serve-process.js'

describe('the Node.js options of bula serve', () => {
  it('adds those the process lacks, leaving any the user set (on the command line or in NODE_OPTIONS)', () => {
    expect(missingServeFlags([], undefined)).toEqual([...SERVE_NODE_FLAGS])
    expect(missingServeFlags(['--max-semi-space-size=8'], undefined)).toEqual([])
    expect(missingServeFlags([], '--max_semi_space_size=32 --trace-warnings')).toEqual([])
    expect(missingServeFlags(['--expose-gc'], '--max-old-space-size=100')).toEqual([...SERVE_NODE_FLAGS])
  })

  // Where the process can restart itself with them (execve: Linux and macOS, Node 22.15+), under the same pid.
  it.runIf(process.platform === 'linux' && typeof process.execve === 'function')('runs bula serve with them, as the process that was started', async () => {
    const serve = await startServe({ memory: true })
    try {
      const commandLine = (await readFile(`/proc/${serve.process.pid}/cmdline`, 'utf8')).split('\0')
      for (const flag of SERVE_NODE_FLAGS) expect(commandLine).toContain(flag)
    } finally {
      await serve.stop()
    }
  })
})
