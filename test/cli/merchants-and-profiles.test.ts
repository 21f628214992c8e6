import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { merchantMeSchema, signupResponseSchema } from '../../src/schemas/index.js'
import { cliConfigDir, parseJsonOutput, runCli, signupMerchant, useServe } from '../helpers/cli.js'
import { expectMode } from '../helpers/platform.js'

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
