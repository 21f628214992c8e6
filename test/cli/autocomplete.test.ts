import { execa } from 'execa'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeCliConfigDir, runCli } from '../helpers/cli.js'

// The plugin writes its completion cache under the CLI's cache folder: a temporary one, not the user's.
let cacheDir: string
beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), 'bula-cache-'))
})
afterAll(async () => {
  await rm(cacheDir, { recursive: true, force: true })
  removeCliConfigDir()
})

const autocomplete = (args: string[]) => runCli(['autocomplete', ...args], { env: { BULA_CACHE_DIR: cacheDir } })

/** What bash offers for the words typed so far, with the completion function the plugin generated. */
async function complete(words: string[]): Promise<string[]> {
  const functions = path.join(cacheDir, 'autocomplete', 'functions', 'bash', 'bula.bash')
  const script = `source "${functions}"; COMP_WORDS=(${words.map((word) => `"${word}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _bula_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
  const { stdout } = await execa('bash', ['-c', script])
  return stdout.split('\n').filter((word) => word !== '')
}

describe('bula autocomplete', () => {
  it.each(['bash', 'zsh'])('prints the %s setup instructions', async (shell) => {
    const result = await autocomplete([shell])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain('Setup Instructions for BULA CLI Autocomplete')
    expect(result.stdout).toContain(`bula autocomplete script ${shell}`)
  })

  it('completes topics, commands and flags in bash, with spaces between them', async () => {
    const refreshed = await autocomplete(['--refresh-cache'])
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    expect(await complete(['bula', 'fix'])).toEqual(['fixtures'])
    expect(await complete(['bula', 'logs', ''])).toEqual(['tail'])
    expect(await complete(['bula', 'state', ''])).toEqual(['export', 'import', 'reset'])
    expect(await complete(['bula', 'logs', 'tail', '--st'])).toEqual(['--status'])
  })
})
