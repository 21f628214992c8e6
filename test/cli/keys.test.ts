import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  apiKeyListSchema,
  createApiKeyResponseSchema,
  revokeApiKeyResponseSchema,
  rotateApiKeyResponseSchema,
} from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, useServe, type TestMerchant } from '../helpers/cli.js'
import { tempFolder } from '../helpers/temp.js'

const server = useServe()
let merchant: TestMerchant

beforeAll(async () => {
  merchant = await signupMerchant(server().baseUrl)
})

const keys = (args: string[]) => runCli(['keys', ...args], { env: merchant.env })

describe('keys', () => {
  it('creates, lists, rotates and revokes keys with typed JSON output', async () => {
    const created = createApiKeyResponseSchema.parse(parseJsonOutput(await keys(['create', '--type', 'secret', '--json'])))
    expect(created.key).toMatchObject({ type: 'secret', mode: 'test', status: 'active' })
    expect(created.key.plaintext).toMatch(/^sk_test_/)

    const list = apiKeyListSchema.parse(parseJsonOutput(await keys(['list', '--json'])))
    const listed = list.data.find((key) => key.id === created.key.id)
    expect(listed).toMatchObject({ type: 'secret', mode: 'test', status: 'active' })
    expect(JSON.stringify(list)).not.toContain(created.key.plaintext)

    const rotated = rotateApiKeyResponseSchema.parse(parseJsonOutput(await keys(['rotate', created.key.id, '--json'])))
    expect(rotated.previous).toMatchObject({ id: created.key.id, status: 'expiring' })
    expect(rotated.previous.expiresAt).toEqual(expect.any(Number))
    expect(rotated.key.plaintext).toMatch(/^sk_test_/)
    expect(rotated.key.id).not.toBe(created.key.id)

    const revoked = revokeApiKeyResponseSchema.parse(parseJsonOutput(await keys(['revoke', rotated.key.id, '--json'])))
    expect(revoked.key).toMatchObject({ id: rotated.key.id, status: 'revoked', revokedAt: expect.any(Number) })

    // The revoked key is refused from now on.
    const refused = await runCli(['merchants', 'me'], { env: { ...merchant.env, BULA_API_KEY: rotated.key.plaintext } })
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toMatch(/^invalid_api_key: /)
  })

  // Rotating or revoking the CLI's own key left every later command failing with invalid_api_key, with no word of why.
  it('says so when the key rotated or revoked is the one the CLI uses, and what to do', async () => {
    const made = async () => createApiKeyResponseSchema.parse(parseJsonOutput(await keys(['create', '--type', 'secret', '--json']))).key
    const own = await made()
    const env = { ...merchant.env, BULA_API_KEY: own.plaintext }
    const rotated = await runCli(['keys', 'rotate', own.id], { env })
    expect(rotated.exitCode, rotated.stderr).toBe(0)
    const next = /^key:\s+(sk_test_\S+)$/m.exec(rotated.stdout)?.[1]
    expect(rotated.stdout.replace(/\s+/g, ' ')).toMatch(/That is the key this CLI uses \(BULA_API_KEY\), and it stops working at .+\. Use the new one in BULA_API_KEY from now on\./)

    const configDir = await tempFolder('bula-own-key-')
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ current: 'default', profiles: { default: { baseUrl: server().baseUrl, apiKey: next } } }), { mode: 0o600 })
    const listed = apiKeyListSchema.parse(parseJsonOutput(await keys(['list', '--json']))).data.find((key) => key.status === 'active' && next!.endsWith(key.masked.slice(-4)))!
    const revoked = await runCli(['keys', 'revoke', listed.id], { env: { BULA_CONFIG_DIR: configDir } })
    expect(revoked.exitCode, revoked.stderr).toBe(0)
    expect(revoked.stdout.replace(/\s+/g, ' ')).toContain('That is the key this CLI uses (profile "default"), and it stops working now. Save another: bula login --api-key <another secret key>')

    // Another key's rotation says nothing of the sort.
    const other = await runCli(['keys', 'rotate', (await made()).id], { env: merchant.env })
    expect(other.exitCode, other.stderr).toBe(0)
    expect(other.stdout).not.toContain('the key this CLI uses')
  })

  it('prints a created key once in human output, and masks it in the table', async () => {
    const created = await keys(['create', '--type', 'publishable'])
    expect(created.exitCode, created.stderr).toBe(0)
    const plaintext = /^key:\s+(pk_test_\S+)$/m.exec(created.stdout)?.[1]
    expect(plaintext).toBeDefined()
    expect(created.stdout).toContain('shown only once')

    const list = await keys(['list'])
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+TYPE\s+MODE\s+KEY\s+STATUS\s+CREATED\s+EXPIRES$/)
    expect(list.stdout).toContain('publishable')
    expect(list.stdout).not.toContain(plaintext)
  })

  it('refuses a live key from a test key', async () => {
    const result = await keys(['create', '--type', 'secret', '--mode', 'live', '--json'])
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'live_key_requires_live_key' } })
  })

  it('reports an unknown key id', async () => {
    const result = await keys(['revoke', 'key_doesnotexist'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^not_found: /)
  })
})
