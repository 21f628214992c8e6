import { execa, type ResultPromise } from 'execa'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

interface Ready {
  baseUrl: string
  profile: string | null
  profileSaved?: boolean
  demo?: { business: { secret: string } }
  text: string[]
  stderr: string[]
}

async function serve(extra: string[], dir = configDir, env: Record<string, string | undefined> = { npm_command: undefined }): Promise<Ready> {
  const child = execa('node', [BIN, 'serve', '--port', '0', '--memory', ...extra], { env: { BULA_CONFIG_DIR: dir, CI: 'true', ...env }, reject: false, buffer: false, stdin: 'ignore' })
  running.push(child)
  const text: string[] = []
  const stderr: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line))
  const lines = createInterface({ input: child.stdout! })
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      text.push(line)
      if (line.startsWith('{')) {
        resolve({ ...(JSON.parse(line) as Omit<Ready, 'text' | 'stderr'>), text, stderr })
      } else if (line.startsWith('Press Ctrl-C')) resolve({ baseUrl: /ready at (\S+)/.exec(text.join('\n'))![1]!, profile: null, text, stderr })
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

    // Started with npx, as the docs teach: every command it prints is one a shell without bula on PATH runs.
    const second = await serve([], configDir, { npm_command: 'exec' })
    const port = new URL(second.baseUrl).port
    expect(second.text.join('\n')).toContain(`saved in CLI profile "memory-${port}"`)
    expect(second.text.join('\n')).toContain(`The CLI still uses profile "default" (another simulator). For this one: npx bula <command> --profile memory-${port}, or export BULA_PROFILE=memory-${port}`)
    // `bula dashboard` alone would open the first simulator's dashboard.
    expect(second.text.join('\n')).toContain(`(\`npx bula dashboard --profile memory-${port}\` opens it signed in)`)
    // The first project's CLI still talks to the first simulator.
    expect(config().current).toBe('default')
    expect(config().profiles.default!.baseUrl).toBe(first.baseUrl)
    expect(config().profiles[`memory-${port}`]!.baseUrl).toBe(second.baseUrl)
  })

  it('names the profile the CLI really uses when the keys went to another: BULA_PROFILE, or a current one not "default"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bula-serve-profiles-in-use-'))
    try {
      await serve(['--json'], dir)
      // The profile in use is "live" (as `bula login --profile live` leaves it), not "default".
      const second = await serve([], dir, { BULA_PROFILE: 'live', npm_command: undefined })
      const port = new URL(second.baseUrl).port
      expect(second.text.join('\n')).toContain(`The CLI still uses profile "live" (another simulator). For this one: bula <command> --profile memory-${port}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('names the dashboard command without --profile when the keys went to the current profile', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'bula-serve-profiles-fresh-'))
    try {
      const started = await serve([], fresh)
      expect(started.text.join('\n')).toContain('(`bula dashboard` opens it signed in)')
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })

  it('serves and prints the demo keys when the profile cannot be saved: they are shown only once', async () => {
    // A file where the config folder should be: even root cannot write under it.
    const notAFolder = path.join(configDir, 'not-a-folder')
    writeFileSync(notAFolder, '')
    const started = await serve(['--json'], notAFolder)
    expect(started).toMatchObject({ profileSaved: false, profile: null })
    const me = await fetch(`${started.baseUrl}/v1/merchants/me`, { headers: { authorization: `Bearer ${started.demo!.business.secret}` } })
    expect(me.status).toBe(200)
    await expect.poll(() => started.stderr.join('\n')).toContain(`The demo keys were not saved in a CLI profile (Cannot read ${notAFolder}/config.json: ENOTDIR`)
    expect(started.stderr.join('\n')).toContain('use them with --api-key or BULA_API_KEY.')
  })
})
