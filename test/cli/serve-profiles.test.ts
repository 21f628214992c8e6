import { execa, type ResultPromise } from 'execa'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN } from '../helpers/serve-process.js'

// Issue 14: a second `bula serve` never silently repoints the profile another project's CLI uses.

const configDir = mkdtempSync(path.join(tmpdir(), 'bula-serve-profiles-'))
const running: ResultPromise[] = []
afterAll(async () => {
  for (const child of running) child.kill('SIGTERM')
  await Promise.all(running)
  rmSync(configDir, { recursive: true, force: true })
})

async function serve(extra: string[]): Promise<{ baseUrl: string; profile: string | null; text: string[] }> {
  const child = execa('node', [BIN, 'serve', '--port', '0', '--memory', ...extra], { env: { BULA_CONFIG_DIR: configDir, CI: 'true' }, reject: false, buffer: false, stdin: 'ignore' })
  running.push(child)
  const text: string[] = []
  const lines = createInterface({ input: child.stdout! })
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      text.push(line)
      if (line.startsWith('{')) {
        const ready = JSON.parse(line) as { baseUrl: string; profile: string | null }
        resolve({ ...ready, text })
      } else if (line.startsWith('Press Ctrl-C')) resolve({ baseUrl: /ready at (\S+)/.exec(text.join('\n'))![1]!, profile: null, text })
    })
    void child.then((result) => reject(new Error(`serve exited ${result.exitCode}`)))
  })
}

const config = () => JSON.parse(readFileSync(path.join(configDir, 'config.json'), 'utf8')) as { current?: string; profiles: Record<string, { baseUrl: string }> }

describe('bula serve and the CLI profile', () => {
  it('saves the first simulator as "default", and a second one under its own name, saying how to use it', async () => {
    const first = await serve(['--json'])
    expect(first.profile).toBe('default')
    expect(config().profiles.default!.baseUrl).toBe(first.baseUrl)

    const second = await serve([])
    const port = new URL(second.baseUrl).port
    expect(second.text.join('\n')).toContain(`saved in CLI profile "memory-${port}"`)
    expect(second.text.join('\n')).toContain(`The CLI still uses profile "default" (another simulator). For this one: npx bula <command> --profile memory-${port}, or export BULA_PROFILE=memory-${port}`)
    // The first project's CLI still talks to the first simulator.
    expect(config().current).toBe('default')
    expect(config().profiles.default!.baseUrl).toBe(first.baseUrl)
    expect(config().profiles[`memory-${port}`]!.baseUrl).toBe(second.baseUrl)
  })
})
