import http from 'node:http'
import { beforeAll, describe, expect, it } from 'vitest'
import { HOUR, client, signupMerchant, useTestServer, unlockLive } from '../helpers/http.js'

let base: string

const server = useTestServer()
beforeAll(async () => {
  base = server().baseUrl
})

describe.each(['/api-keys', '/v1/api-keys'])('%s', (prefix) => {
  it('creates a key whose plaintext is shown once and works', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const created = await api.post(prefix, { type: 'secret' })
    expect(created.status).toBe(200)
    expect(created.body.key).toMatchObject({ type: 'secret', mode: 'test', status: 'active', prefix: 'sk_test_' })
    expect(created.body.key.plaintext).toMatch(/^sk_test_/)
    expect((await client(base, created.body.key.plaintext).get('/v1/merchants/me')).status).toBe(200)

    const listed = await api.get(prefix)
    expect(listed.status).toBe(200)
    const row = listed.body.data.find((key: { id: string }) => key.id === created.body.key.id)
    expect(row.masked).toBe(`sk_test_…${created.body.key.plaintext.slice(-4)}`)
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key.plaintext)
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/)
    expect(listed.body.data).toHaveLength(3)
  })

  it('creates publishable keys that only create sessions', async () => {
    const { keys } = await signupMerchant(base)
    const created = await client(base, keys.secret).post(prefix, { type: 'publishable' })
    expect(created.body.key.plaintext).toMatch(/^pk_test_/)
    expect((await client(base, created.body.key.plaintext).get('/v1/merchants/me')).status).toBe(403)
  })

  it('validates the body', async () => {
    const api = client(base, (await signupMerchant(base)).keys.secret)
    for (const [body, param] of [
      [{}, 'type'],
      [{ type: 'restricted' }, 'type'],
      [{ type: 'secret', mode: 'prod' }, 'mode'],
      [{ type: 'secret', name: 'x' }, 'name'],
    ] as const) {
      const response = await api.post(prefix, body)
      expect(response.status).toBe(400)
      expect(response.body.error.param).toBe(param)
    }
  })
})

describe('key modes', () => {
  it('never lets a test key create a live key', async () => {
    const { keys } = await signupMerchant(base)
    const response = await client(base, keys.secret).post('/v1/api-keys', { type: 'secret', mode: 'live' })
    expect(response.status).toBe(403)
    expect(response.body.error.code).toBe('live_key_requires_live_key')
  })

  it('lets a live key manage live keys only, and hides each mode from the other', async () => {
    const { keys } = await signupMerchant(base)
    const live = await unlockLive(base, keys.secret)
    expect(live.secret).toMatch(/^sk_live_/)
    const liveApi = client(base, live.secret)
    expect((await liveApi.get('/v1/merchants/me')).body.mode).toBe('live')
    const created = await liveApi.post('/v1/api-keys', { type: 'secret' })
    expect(created.body.key.mode).toBe('live')
    expect((await liveApi.post('/v1/api-keys', { type: 'secret', mode: 'test' })).status).toBe(403)

    const testApi = client(base, keys.secret)
    const testKeys = (await testApi.get('/v1/api-keys')).body.data
    expect(testKeys.every((key: { mode: string }) => key.mode === 'test')).toBe(true)
    // A live key's id is 404 to a test key, and the other way round.
    expect((await testApi.post(`/v1/api-keys/${created.body.key.id}/revoke`)).status).toBe(404)
    expect((await liveApi.post(`/v1/api-keys/${testKeys[0].id}/revoke`)).status).toBe(404)
  })

  it('hides one merchant’s keys from another (404)', async () => {
    const a = await signupMerchant(base)
    const b = await signupMerchant(base)
    const aKey = (await client(base, a.keys.secret).post('/v1/api-keys', { type: 'secret' })).body.key
    const response = await client(base, b.keys.secret).post(`/v1/api-keys/${aKey.id}/rotate`)
    expect(response.status).toBe(404)
    expect(response.body.error.code).toBe('not_found')
    expect((await client(base, aKey.plaintext).get('/v1/merchants/me')).status).toBe(200)
  })
})

describe('rotation and revocation', () => {
  it('keeps a rotated key working for 72 hours of the merchant clock', async () => {
    const { keys } = await signupMerchant(base)
    const admin = client(base, keys.secret)
    const old = (await admin.post('/v1/api-keys', { type: 'secret' })).body.key
    const rotated = await admin.post(`/v1/api-keys/${old.id}/rotate`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.key.plaintext).toMatch(/^sk_test_/)
    expect(rotated.body.previous).toMatchObject({ id: old.id, status: 'expiring' })
    expect(rotated.body.previous.expiresAt - (await admin.get('/_sim/clock')).body.now).toBeGreaterThan(71.9 * HOUR)

    const oldApi = client(base, old.plaintext)
    const newApi = client(base, rotated.body.key.plaintext)
    expect((await admin.post('/_sim/clock/advance', { ms: 71 * HOUR })).status).toBe(200)
    expect((await oldApi.get('/v1/merchants/me')).status).toBe(200)
    expect((await newApi.get('/v1/merchants/me')).status).toBe(200)

    await admin.post('/_sim/clock/advance', { ms: 2 * HOUR })
    const refused = await oldApi.get('/v1/merchants/me')
    expect(refused.status).toBe(401)
    expect(refused.body.error.code).toBe('invalid_api_key')
    expect((await newApi.get('/v1/merchants/me')).status).toBe(200)
    const listed = (await admin.get('/v1/api-keys')).body.data.find((key: { id: string }) => key.id === old.id)
    expect(listed.status).toBe('expired')

    // Rotating an already rotated key is refused: rotate its replacement.
    expect((await admin.post(`/v1/api-keys/${old.id}/rotate`)).body.error.code).toBe('invalid_state')
  })

  it('revokes immediately, also during a rotation overlap', async () => {
    const { keys } = await signupMerchant(base)
    const admin = client(base, keys.secret)
    const key = (await admin.post('/v1/api-keys', { type: 'secret' })).body.key
    await admin.post(`/v1/api-keys/${key.id}/rotate`)
    const revoked = await admin.post(`/v1/api-keys/${key.id}/revoke`)
    expect(revoked.status).toBe(200)
    expect(revoked.body.key.status).toBe('revoked')
    expect((await client(base, key.plaintext).get('/v1/merchants/me')).status).toBe(401)
    const again = await admin.post(`/v1/api-keys/${key.id}/revoke`)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('invalid_state')
  })

  it('lets a key revoke itself', async () => {
    const { keys } = await signupMerchant(base)
    const admin = client(base, keys.secret)
    const self = (await admin.get('/v1/api-keys')).body.data.find((key: { type: string }) => key.type === 'secret')
    expect((await admin.post(`/v1/api-keys/${self.id}/revoke`)).status).toBe(200)
    expect((await admin.get('/v1/merchants/me')).status).toBe(401)
  })
})

describe('a key revoked while its request\'s body is still arriving', () => {
  it('acts on nothing: the request answers 401 and mints no key', async () => {
    const { keys } = await signupMerchant(base)
    const api = client(base, keys.secret)
    const doomed = (await api.post('/api-keys', { type: 'secret' })).body.key
    const body = JSON.stringify({ type: 'secret' })
    const { hostname, port } = new URL(base)
    const request = http.request({
      host: hostname,
      port,
      path: '/api-keys',
      method: 'POST',
      headers: { authorization: `Bearer ${doomed.plaintext}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    const answered = new Promise<number | undefined>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume()
        resolve(response.statusCode)
      })
      request.on('error', reject)
    })
    // The headers (and the key) arrive first; the rest of the body only after the revoke was answered.
    request.write(body.slice(0, 5))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await api.post(`/api-keys/${doomed.id}/revoke`)).status).toBe(200)
    request.end(body.slice(5))
    expect(await answered).toBe(401)
    expect((await api.get('/api-keys')).body.data).toHaveLength(3)
  })
})
