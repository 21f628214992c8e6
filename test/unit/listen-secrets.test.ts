import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseEventTypes, parseForwardUrl } from '../../src/listen/options.js'
import { listenSecret, listenSecretsPath, type ListenScope } from '../../src/listen/secrets.js'
import { expectMode } from '../helpers/platform.js'

let dir: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bula-listen-'))
  env = { BULA_CONFIG_DIR: join(dir, 'bula') }
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const SCOPE: ListenScope = { baseUrl: 'http://127.0.0.1:4111', merchantId: 'ms_1', mode: 'test' }

describe('listenSecret', () => {
  it('creates a whsec_ secret once per simulator, merchant and mode, and keeps it', async () => {
    const secret = await listenSecret(SCOPE, env)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/)
    expect(await listenSecret({ ...SCOPE }, env)).toBe(secret)

    const second = await listenSecret({ ...SCOPE, merchantId: 'ms_2' }, env)
    const live = await listenSecret({ ...SCOPE, mode: 'live' }, env)
    const elsewhere = await listenSecret({ ...SCOPE, baseUrl: 'http://127.0.0.1:5000' }, env)
    expect(new Set([secret, second, live, elsewhere]).size).toBe(4)
    expect(await listenSecret(SCOPE, env)).toBe(secret)
  })

  // Found by an adversarial pass: two listens started together each saved a secret of their own, and one signed with
  // a secret that the file, and --print-secret, no longer had.
  it('gives listens started together one secret, and leaves no lock behind', async () => {
    const secrets = await Promise.all(Array.from({ length: 6 }, () => listenSecret(SCOPE, env)))
    expect(new Set(secrets).size).toBe(1)
    expect(JSON.parse(await readFile(listenSecretsPath(env), 'utf8')).secrets).toEqual({ [`${SCOPE.baseUrl} ${SCOPE.merchantId} ${SCOPE.mode}`]: secrets[0] })
    await expect(readFile(`${listenSecretsPath(env)}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('takes over a lock left by a process that died holding it', async () => {
    await mkdir(join(dir, 'bula'), { recursive: true, mode: 0o700 })
    await writeFile(`${listenSecretsPath(env)}.lock`, '999999\n')
    const old = new Date(Date.now() - 60_000)
    await utimes(`${listenSecretsPath(env)}.lock`, old, old)
    expect(await listenSecret(SCOPE, env)).toMatch(/^whsec_/)
  })

  it('writes the file 0600 in a 0700 folder, keeping fields it does not know', async () => {
    await mkdir(join(dir, 'bula'), { mode: 0o700 })
    await writeFile(listenSecretsPath(env), JSON.stringify({ note: 'kept', secrets: {} }))
    await listenSecret(SCOPE, env)
    const file = listenSecretsPath(env)
    expect(file).toBe(join(dir, 'bula', 'listen-secrets.json'))
    await expectMode(file, 0o600)
    await expectMode(join(dir, 'bula'), 0o700)
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ note: 'kept' })
  })

  it('refuses a damaged file instead of replacing the secrets in it', async () => {
    await mkdir(join(dir, 'bula'), { recursive: true })
    await writeFile(listenSecretsPath(env), '{"secrets": {"x": "not a whsec"}}')
    await expect(listenSecret(SCOPE, env)).rejects.toMatchObject({ code: 'invalid_config', message: expect.stringContaining('listen-secrets.json') })
    for (const damaged of ['nope', '[]', '{"secrets": []}', '{"secrets": null}', '{"secrets": {"x": 7}}', 'null']) {
      await writeFile(listenSecretsPath(env), damaged)
      await expect(listenSecret(SCOPE, env), damaged).rejects.toMatchObject({ code: 'invalid_config' })
    }
    // A file without secrets yet is one with none.
    await writeFile(listenSecretsPath(env), '{}')
    expect(await listenSecret(SCOPE, env)).toMatch(/^whsec_/)
  })
  it.skipIf(process.platform !== 'linux')('names the secrets file and BULA_CONFIG_DIR when it cannot be written', async () => {
    // /proc/self takes no new file, even for root.
    await expect(listenSecret(SCOPE, { BULA_CONFIG_DIR: '/proc/self' })).rejects.toMatchObject({
      code: 'file_unwritable',
      message: 'Cannot save the listen secret in /proc/self/listen-secrets.json (ENOENT): make /proc/self writable, or set BULA_CONFIG_DIR to a folder you can write.',
    })
  })
})

describe('listen options', () => {
  it('reads --forward-to with or without a scheme', () => {
    expect(parseForwardUrl('http://localhost:3000/webhooks')).toBe('http://localhost:3000/webhooks')
    expect(parseForwardUrl('localhost:3000/webhooks')).toBe('http://localhost:3000/webhooks')
    expect(parseForwardUrl('https://example.test/hook?x=1')).toBe('https://example.test/hook?x=1')
    expect(() => parseForwardUrl('ftp://example.test/')).toThrow(/Invalid --forward-to "ftp:\/\/example.test\/"/)
    expect(() => parseForwardUrl('http://')).toThrow(/Invalid --forward-to/)
    expect(parseForwardUrl('http://[::1]:3000/hook')).toBe('http://[::1]:3000/hook')
    expect(parseForwardUrl('xn--kva-xla.test/hook')).toBe('http://xn--kva-xla.test/hook')
    expect(parseForwardUrl('web_app:3000/hook')).toBe('http://web_app:3000/hook')
  })

  // `http://` put in front of `http//localhost:4944/hook` made a host named http: listen started, and every delivery
  // failed with ENOTFOUND.
  it.each([
    ['http//localhost:4944/hook', 'http://localhost:4944/hook'],
    ['https//shop.test/hook', 'https://shop.test/hook'],
    ['http:/localhost:4944/hook', 'http://localhost:4944/hook'],
    ['http:localhost:4944/hook', 'http://localhost:4944/hook'],
    ['HTTP//localhost/hook', 'http://localhost/hook'],
  ])('refuses --forward-to %j, a mistyped scheme, and names %j', (input, meant) => {
    expect(() => parseForwardUrl(input)).toThrow(`Invalid --forward-to "${input}": its scheme is mistyped; did you mean ${meant}?`)
  })

  it.each(['ht!tp://::bad', 'local*host:3000/hook', 'http://exa mple.test/'])('refuses --forward-to %j, whose host no receiver can have', (input) => {
    expect(() => parseForwardUrl(input)).toThrow(`Invalid --forward-to "${input}": use your receiver's http(s) URL`)
  })

  it('reads --events as known types, comma-separated', () => {
    expect(parseEventTypes('checkout_session.succeeded, payment.failed,,payment.failed')).toEqual(['checkout_session.succeeded', 'payment.failed'])
    expect(() => parseEventTypes('checkout_session.paid,payment.failed')).toThrow(/Unknown event type "checkout_session.paid": choose from webhook.verified, /)
    expect(() => parseEventTypes(' , ')).toThrow(/\(none given\)/)
  })
})
