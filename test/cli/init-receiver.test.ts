import { execa, type ResultPromise } from 'execa'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { WebhookCheckResult } from '../../src/webhooks/check.js'
import { parseJsonOutput, removeCliConfigDir, runCli } from '../helpers/cli.js'
import { BIN } from '../helpers/serve-process.js'

const REPO = path.resolve(import.meta.dirname, '../..')
const TEMPLATE_DIR = path.join(REPO, 'templates', 'receiver')
const TEMPLATE_FILES = ['README.md', 'package.json', 'receiver.mjs']
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version

interface InitResult {
  dir: string
  files: string[]
  overwritten: string[]
}

let workDir: string
beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'bula-init-'))
})
afterEach(() => {
  rmSync(workDir, { recursive: true, force: true })
})
afterAll(removeCliConfigDir)

const read = (...parts: string[]) => readFileSync(path.join(...parts), 'utf8')

describe('init receiver', () => {
  it('copies the sample into DIR, pinning bula to this version', async () => {
    const dir = path.join(workDir, 'hooks')
    const result = await runCli(['init', 'receiver', dir, '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(parseJsonOutput<InitResult>(result)).toEqual({ dir, files: TEMPLATE_FILES, overwritten: [] })

    expect(read(dir, 'receiver.mjs')).toBe(read(TEMPLATE_DIR, 'receiver.mjs'))
    expect(read(dir, 'README.md')).toBe(read(TEMPLATE_DIR, 'README.md'))
    const pkg = JSON.parse(read(dir, 'package.json')) as { dependencies: Record<string, string> }
    expect(pkg.dependencies).toEqual({ bula: `^${VERSION}`, express: expect.stringMatching(/^\^5\./) })
  })

  it('writes ./bula-receiver by default and says what to run next', async () => {
    const result = await execa('node', [BIN, 'init', 'receiver'], { cwd: workDir, reject: false })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(read(workDir, 'bula-receiver', 'receiver.mjs')).toBe(read(TEMPLATE_DIR, 'receiver.mjs'))
    expect(result.stdout).toContain('cd bula-receiver && npm install')
    expect(result.stdout).toContain('bula listen --forward-to http://localhost:3000/webhooks')
  })

  it('refuses to overwrite existing files without --force (exit 2), and overwrites them with it', async () => {
    const dir = path.join(workDir, 'hooks')
    mkdirSync(dir)
    writeFileSync(path.join(dir, 'receiver.mjs'), '// my own receiver\n')

    const refused = await runCli(['init', 'receiver', dir])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('receiver.mjs')
    expect(refused.stderr).toContain('--force')
    expect(read(dir, 'receiver.mjs')).toBe('// my own receiver\n')
    // Nothing at all is written when one file is in the way.
    expect(() => read(dir, 'README.md')).toThrow()

    const refusedJson = await runCli(['init', 'receiver', dir, '--json'])
    expect(refusedJson.exitCode).toBe(2)
    expect(parseJsonOutput<{ error: { code: string; message: string } }>(refusedJson).error).toMatchObject({
      code: 'invalid_usage',
      message: expect.stringContaining('already has receiver.mjs'),
    })

    const forced = await runCli(['init', 'receiver', dir, '--force', '--json'])
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(parseJsonOutput<InitResult>(forced)).toMatchObject({ files: TEMPLATE_FILES, overwritten: ['receiver.mjs'] })
    expect(read(dir, 'receiver.mjs')).toBe(read(TEMPLATE_DIR, 'receiver.mjs'))
  })

  it('refuses a DIR that is a file (exit 2)', async () => {
    const file = path.join(workDir, 'not-a-folder')
    writeFileSync(file, '')
    const result = await runCli(['init', 'receiver', file])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('is a file, not a folder')
  })
})

describe('the sample receiver', () => {
  const SECRET = 'whsec_sample_receiver_secret'
  let sample: ResultPromise | undefined

  afterEach(async () => {
    sample?.kill()
    await sample
    sample = undefined
  })

  /** Writes the sample and resolves its imports to this repository, as `npm install` would to the published bula. */
  async function writeSample(): Promise<string> {
    const dir = path.join(workDir, 'bula-receiver')
    const result = await runCli(['init', 'receiver', dir])
    expect(result.exitCode, result.stderr).toBe(0)
    mkdirSync(path.join(dir, 'node_modules'))
    symlinkSync(REPO, path.join(dir, 'node_modules', 'bula'), 'dir')
    symlinkSync(path.join(REPO, 'node_modules', 'express'), path.join(dir, 'node_modules', 'express'), 'dir')
    return dir
  }

  it('passes all five cases of `bula webhooks check`', async () => {
    const dir = await writeSample()
    sample = execa('node', ['receiver.mjs'], {
      cwd: dir,
      env: { BULA_WEBHOOK_SECRET: SECRET, PORT: '0' },
      reject: false,
      buffer: false,
      stdin: 'ignore',
    })
    const lines = createInterface({ input: sample.stdout! })
    const logged: string[] = []
    const url = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        logged.push(line)
        const address = /listening on (http:\/\/\S+)/.exec(line)?.[1]
        if (address) resolve(address)
      })
      void sample?.then((result) => reject(new Error(`the sample exited with ${result.exitCode} before listening`)))
    })

    const result = await runCli(['webhooks', 'check', url, '--secret', SECRET, '--json'])
    expect(result.exitCode, result.stdout).toBe(0)
    const report = parseJsonOutput<WebhookCheckResult>(result)
    expect(report.cases.map((c) => [c.name, c.passed])).toEqual([
      ['signed', true],
      ['bad_signature', true],
      ['stale_timestamp', true],
      ['replay', true],
      ['unknown_fields', true],
    ])
    // Two events were genuine (the replay is skipped), so two orders are fulfilled.
    await expect.poll(() => logged.filter((line) => line.includes('fulfil it')).length).toBe(2)
  })

  it('refuses to start without BULA_WEBHOOK_SECRET', async () => {
    const dir = await writeSample()
    const result = await execa('node', ['receiver.mjs'], { cwd: dir, env: { BULA_WEBHOOK_SECRET: '' }, reject: false })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('Set BULA_WEBHOOK_SECRET')
  })
})
