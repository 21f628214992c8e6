import { mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { merchantMeSchema, signupResponseSchema } from '../../src/schemas/index.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, useServe } from '../helpers/cli.js'
import { expectMode } from '../helpers/platform.js'
import { unlockLive } from '../helpers/http.js'

const server = useServe()

const ESCAPE = '\u001B['

describe('merchants me', () => {
  it('uses BULA_API_KEY and BULA_BASE_URL', async () => {
    const demo = server().demo!.business
    const result = await runCli(['merchants', 'me'], { env: { BULA_BASE_URL: server().baseUrl, BULA_API_KEY: demo.secret } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain(demo.merchantId)
    expect(result.stdout).toMatch(/^mode:\s+test$/m)
    expect(result.stdout).toMatch(/^balance:\s+FJ\$\d[\d,]*\.\d\d$/m)
  })

  it('logs each request and answer on stderr with --verbose, leaving stdout as it was', async () => {
    const demo = server().demo!.business
    const env = { BULA_BASE_URL: server().baseUrl, BULA_API_KEY: demo.secret }
    const result = await runCli(['merchants', 'me', '--json', '--verbose'], { env })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(merchantMeSchema.parse(parseJsonOutput(result)).id).toBe(demo.merchantId)
    const lines = result.stderr.trim().split('\n')
    expect(lines[0]).toBe(`→ GET ${server().baseUrl}/v1/merchants/me`)
    expect(lines[1]).toMatch(new RegExp(`^← 200 GET ${server().baseUrl}/v1/merchants/me in \\d+ ms \\(req_\\w+\\)$`))
  })

  it('prints parseable JSON with --json', async () => {
    const merchant = await signupMerchant(server().baseUrl, 'individual')
    const result = await runCli(['merchants', 'me', '--json'], { env: merchant.env })
    expect(result.exitCode).toBe(0)
    const me = merchantMeSchema.parse(parseJsonOutput(result))
    expect(me).toMatchObject({ id: merchant.merchantId, tier: 'individual', mode: 'test', balance: 0 })
  })

  it('prints an API error as code: message with exit 1, or the envelope with --json', async () => {
    const env = { BULA_BASE_URL: server().baseUrl, BULA_API_KEY: 'sk_test_doesnotexist' }
    const human = await runCli(['merchants', 'me'], { env })
    expect(human.exitCode).toBe(1)
    expect(human.stdout).toBe('')
    expect(human.stderr.trim()).toMatch(/^invalid_api_key: \S.*$/)
    expect(human.stderr).not.toMatch(/\n\s+at /)

    const json = await runCli(['merchants', 'me', '--json'], { env })
    expect(json.exitCode).toBe(1)
    expect(json.stderr).toBe('')
    expect(parseJsonOutput(json)).toEqual({ error: expect.objectContaining({ code: 'invalid_api_key', message: expect.any(String) }) })
  })

  it('uses the --api-key and --base-url flags over the environment', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await runCli(
      ['merchants', 'me', '--json', '--api-key', merchant.secret, '--base-url', server().baseUrl],
      { env: { BULA_BASE_URL: 'http://127.0.0.1:1', BULA_API_KEY: 'sk_test_wrong' } },
    )
    expect(result.exitCode, result.stdout).toBe(0)
    expect(parseJsonOutput(result)).toMatchObject({ id: merchant.merchantId })
  })
})

describe('merchants signup', () => {
  it('prints the keys once, with a warning', async () => {
    const result = await runCli(
      ['merchants', 'signup', '--email', 'kai@example.fj', '--name', 'Kai Store', '--tier', 'business'],
      { env: { BULA_BASE_URL: server().baseUrl } },
    )
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^secret key:\s+sk_test_\S+$/m)
    expect(result.stdout).toMatch(/^publishable key:\s+pk_test_\S+$/m)
    expect(result.stdout).toContain('shown only once')
  })

  it('returns the signup response with --json', async () => {
    const result = await runCli(
      ['merchants', 'signup', '--email', 'mere@example.fj', '--name', 'Mere', '--tier', 'individual', '--json'],
      { env: { BULA_BASE_URL: server().baseUrl } },
    )
    const signup = signupResponseSchema.parse(parseJsonOutput(result))
    expect(signup.merchant).toMatchObject({ name: 'Mere', tier: 'individual', verificationStatus: 'unverified' })
  })

  it('reports a validation error with its param', async () => {
    const result = await runCli(['merchants', 'signup', '--email', 'not-an-email', '--name', 'X', '--tier', 'business'], {
      env: { BULA_BASE_URL: server().baseUrl },
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toMatch(/^invalid_request: .+ \(param: email\)$/)
  })
})

describe('profiles', () => {
  it('signup --save-profile stores the keys and later commands use them', async () => {
    const signup = await runCli(
      ['merchants', 'signup', '--email', 'p@example.fj', '--name', 'Profiled', '--tier', 'business', '--save-profile', 'shop', '--json'],
      { env: { BULA_BASE_URL: server().baseUrl } },
    )
    const { merchant } = signupResponseSchema.parse(parseJsonOutput(signup))
    const me = await runCli(['merchants', 'me', '--json', '--profile', 'shop'])
    expect(me.exitCode, me.stdout).toBe(0)
    expect(parseJsonOutput(me)).toMatchObject({ id: merchant.id, name: 'Profiled' })
  })

  it('login checks the key, saves a 0600 profile and makes it current', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const login = await runCli(['login', '--api-key', merchant.secret, '--base-url', server().baseUrl, '--profile', 'work'])
    expect(login.exitCode, login.stderr).toBe(0)
    expect(login.stdout).toContain('Logged in as CLI business (test mode)')
    expect(login.stdout).toContain('Saved profile "work"')

    const file = path.join(cliConfigDir(), 'config.json')
    await expectMode(file, 0o600)
    const config = JSON.parse(await readFile(file, 'utf8'))
    expect(config.current).toBe('work')
    expect(config.profiles.work).toEqual({ baseUrl: server().baseUrl, apiKey: merchant.secret })

    // No flags, no environment: the current profile is used.
    const me = await runCli(['merchants', 'me', '--json'])
    expect(parseJsonOutput(me)).toMatchObject({ id: merchant.merchantId })

    // The environment still wins over the profile.
    const other = await signupMerchant(server().baseUrl, 'individual')
    const overridden = await runCli(['merchants', 'me', '--json'], { env: { BULA_API_KEY: other.secret } })
    expect(parseJsonOutput(overridden)).toMatchObject({ id: other.merchantId })
  })

  // The README's `npm start -- --port 4112`, then `bula login --api-key sk_live_... --profile live`: the new profile is
  // for the simulator the current one points at, not for the default address, where none runs.
  it('login to a new profile without --base-url uses the current profile\'s simulator; a name it cannot save is refused before any call', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    expect((await runCli(['login', '--api-key', merchant.secret, '--base-url', server().baseUrl, '--profile', 'work'])).exitCode).toBe(0)
    const second = await runCli(['login', '--api-key', merchant.secret, '--profile', 'second'])
    expect(second.exitCode, second.stderr).toBe(0)
    const config = JSON.parse(await readFile(path.join(cliConfigDir(), 'config.json'), 'utf8'))
    expect([config.current, config.profiles.second.baseUrl]).toEqual(['second', server().baseUrl])

    const badName = await runCli(['login', '--api-key', merchant.secret, '--profile', 'bad name!', '--base-url', 'http://127.0.0.1:9'])
    expect(badName.exitCode).toBe(1)
    expect(badName.stderr).toMatch(/^invalid_profile_name: /)
  })

  // docs/cli.md's verify sequence goes on with test-mode commands after `bula login --api-key sk_live_... --profile live`.
  it('login with a live key says that commands now act on live data, and how to go back', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const live = await unlockLive(server().baseUrl, merchant.secret)
    const env = { BULA_CONFIG_DIR: await mkdtemp(path.join(tmpdir(), 'bula-live-login-')) }
    try {
      const test = await runCli(['login', '--api-key', merchant.secret, '--base-url', server().baseUrl], { env })
      expect(test.exitCode, test.stderr).toBe(0)
      expect(test.stdout).not.toContain('LIVE')
      const login = await runCli(['login', '--api-key', live.secret, '--profile', 'live'], { env })
      expect(login.exitCode, login.stderr).toBe(0)
      expect(login.stdout.replace(/\s+/g, ' ')).toContain(
        'Commands now act on LIVE data: profile "live" holds a live key. Go back with `bula profiles use default`, or name a profile for one command with --profile.',
      )
      const npx = await runCli(['login', '--api-key', live.secret, '--profile', 'live'], { env: { ...env, npm_command: 'exec' } })
      // The live profile was current already: there is no other one to name.
      expect(npx.stdout.replace(/\s+/g, ' ')).toContain('Go back with `npx bula profiles use NAME`')
      // Found by an adversarial pass: in a shell whose BULA_PROFILE or BULA_API_KEY still wins, commands stay in test mode.
      for (const shell of [{ BULA_PROFILE: 'default' }, { BULA_API_KEY: merchant.secret }]) {
        const pinned = await runCli(['login', '--api-key', live.secret, '--profile', 'live2'], { env: { ...env, ...shell } })
        expect(pinned.exitCode, pinned.stderr).toBe(0)
        expect(pinned.stdout, JSON.stringify(shell)).not.toContain('LIVE')
      }
    } finally {
      await rm(env.BULA_CONFIG_DIR, { recursive: true, force: true })
    }
  })

  it('login --json returns the profile and merchant; a bad key saves nothing', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const login = await runCli(['login', '--api-key', merchant.secret, '--profile', 'json-login', '--json'], {
      env: { BULA_BASE_URL: server().baseUrl },
    })
    expect(parseJsonOutput(login)).toMatchObject({
      profile: 'json-login',
      baseUrl: server().baseUrl,
      merchant: { id: merchant.merchantId, mode: 'test' },
    })

    const bad = await runCli(['login', '--api-key', 'sk_test_wrong', '--profile', 'never'], {
      env: { BULA_BASE_URL: server().baseUrl },
    })
    expect(bad.exitCode).toBe(1)
    expect(bad.stderr).toMatch(/^invalid_api_key: /)
    const config = JSON.parse(await readFile(path.join(cliConfigDir(), 'config.json'), 'utf8'))
    expect(config.profiles.never).toBeUndefined()
  })
})

/**
 * A loopback proxy to `targetBaseUrl` that counts signups and runs
 * `beforeSignup` before forwarding one, to change the world mid-command.
 */
async function startSignupProxy(targetBaseUrl: string, beforeSignup: () => Promise<void> = async () => {}) {
  let signups = 0
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      if (req.method === 'POST' && req.url === '/_sim/merchants') {
        signups++
        await beforeSignup()
      }
      const upstream = await fetch(`${targetBaseUrl}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      })
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
      res.end(Buffer.from(await upstream.arrayBuffer()))
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    signups: () => signups,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  }
}

describe('signup --save-profile where the profile cannot be saved', () => {
  const signupArgs = ['merchants', 'signup', '--email', 'lost@example.fj', '--name', 'Lost', '--tier', 'business', '--save-profile', 'lost']

  it('checks the config folder before signing up, so no merchant is made whose keys only a failed save would hold', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'bula-signup-'))
    // A folder that is a dangling link: readable as "no config yet", but nothing can be written in it, even by root.
    const configDir = path.join(scratch, 'config')
    await symlink(path.join(scratch, 'missing', 'bula'), configDir)
    const proxy = await startSignupProxy(server().baseUrl)
    try {
      for (const json of [[], ['--json']]) {
        const result = await runCli([...signupArgs, ...json], { env: { BULA_BASE_URL: proxy.baseUrl, BULA_CONFIG_DIR: configDir } })
        expect(result.exitCode).toBe(1)
        expect(json.length ? parseJsonOutput(result) : result.stderr).toMatchObject(
          json.length ? { error: { code: 'file_unwritable' } } : expect.stringMatching(/^file_unwritable: Cannot save profile "lost" in /),
        )
      }
      expect(proxy.signups()).toBe(0)
    } finally {
      await proxy.close()
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it('still prints the keys when the save fails after signup: the result on stdout, the failure on stderr, exit 1', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'bula-signup-'))
    const configDir = path.join(scratch, 'config')
    // The folder is fine at the check and gone (a dangling link) by the time the save runs.
    const proxy = await startSignupProxy(server().baseUrl, async () => {
      await rm(configDir, { recursive: true, force: true })
      await symlink(path.join(scratch, 'missing', 'bula'), configDir)
    })
    try {
      for (const json of [true, false]) {
        await rm(configDir, { recursive: true, force: true })
        const result = await runCli([...signupArgs, ...(json ? ['--json'] : [])], { env: { BULA_BASE_URL: proxy.baseUrl, BULA_CONFIG_DIR: configDir } })
        expect(result.exitCode).toBe(1)
        expect(result.stderr.trim()).toMatch(/^file_unwritable: Cannot save profile "lost" in \S+config\.json/)
        const secret = json
          ? signupResponseSchema.parse(parseJsonOutput(result)).keys.secret
          : /^secret key:\s+(sk_test_\S+)$/m.exec(result.stdout)?.[1]
        const me = await runCli(['merchants', 'me', '--json'], { env: { BULA_BASE_URL: server().baseUrl, BULA_API_KEY: secret } })
        expect(parseJsonOutput(me)).toMatchObject({ name: 'Lost' })
      }
      expect(await readdir(scratch)).toEqual(['config'])
    } finally {
      await proxy.close()
      await rm(scratch, { recursive: true, force: true })
    }
  })
})

describe('colour', () => {
  it('colours a table when forced, and NO_COLOR removes every escape code', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const forced = await runCli(['keys', 'list'], { env: { ...merchant.env, FORCE_COLOR: '1' } })
    expect(forced.stdout).toContain(ESCAPE)

    const plain = await runCli(['keys', 'list'], { env: { ...merchant.env, FORCE_COLOR: '1', NO_COLOR: '1' } })
    expect(plain.exitCode).toBe(0)
    expect(plain.stdout).toContain('STATUS')
    expect(plain.stdout).not.toContain(ESCAPE)

    const failed = await runCli(['keys', 'revoke', 'key_missing'], { env: { ...merchant.env, FORCE_COLOR: '1', NO_COLOR: '1' } })
    expect(failed.exitCode).toBe(1)
    expect(failed.stderr).not.toContain(ESCAPE)
  })
})
