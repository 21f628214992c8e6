import type { CaseContext } from '../context.js'
import { defineCases, HOUR, MINUTE } from './support.js'

interface CreatedKey {
  id: string
  mode: string
  type: string
  plaintext: string
}

/** A new key of this type made with POST /api-keys, expecting 200 and the documented `key` object. */
async function createKey(t: CaseContext, type: 'secret' | 'publishable'): Promise<CreatedKey> {
  const key = t.ok(await t.api.post('/api-keys', { type, mode: 'test' })).key as CreatedKey
  t.check(key && typeof key.id === 'string' && typeof key.plaintext === 'string', 'POST /api-keys answered without key.id and key.plaintext')
  return key
}

/** The plaintext of a key in a rotate answer other than `old`; the spec does not show that body, so any place in it will do. */
function newPlaintextIn(body: unknown, old: string): string | undefined {
  const found = JSON.stringify(body ?? null).match(/sk_test_[A-Za-z0-9]+/g) ?? []
  return found.find((key) => key !== old)
}

/** Answers of GET /v1/merchants/me with this key: 200 while it works, 401 after. */
const meWith = (t: CaseContext, key: string, label: string) => t.as(key, label).get('/v1/merchants/me', { record: 'shape' })

export const apiKeyCases = defineCases([
  {
    id: 'api-keys/create',
    title: 'POST /api-keys answers the key object with its plaintext, which works at once',
    rules: ['api-key.fields', 'api-key-endpoints.create', 'authentication.key-lifecycle', 'authentication.key-types'],
    async run(t) {
      const secret = await createKey(t, 'secret')
      t.check(secret.type === 'secret' && secret.mode === 'test' && secret.plaintext.startsWith('sk_test_'), `the new key is ${secret.type} ${secret.mode} ${secret.plaintext.slice(0, 8)}…`)
      t.expectStatus(await meWith(t, secret.plaintext, 'new secret'), 200)
      const publishable = await createKey(t, 'publishable')
      t.check(publishable.type === 'publishable' && publishable.plaintext.startsWith('pk_test_'), 'the new publishable key is not pk_test_')
    },
  },
  {
    id: 'api-keys/list-masked',
    title: 'GET /api-keys lists the keys by id, type and mode, never a plaintext',
    rules: ['api-key.masked', 'api-key-endpoints.list'],
    async run(t) {
      const key = await createKey(t, 'secret')
      const list = await t.api.get('/api-keys', { record: 'shape' })
      t.expectStatus(list, 200)
      t.check(list.text.includes(key.id), 'the list leaves out the new key')
      t.check(!list.text.includes(key.plaintext) && !list.text.includes(t.merchant.secret), 'the list shows a plaintext key')
      t.check(!/"plaintext"/.test(list.text), 'the list has a plaintext field')
    },
  },
  {
    id: 'api-keys/revoke',
    title: 'A revoked key stops working at once',
    rules: ['api-key-endpoints.revoke', 'authentication.key-lifecycle', 'errors.unauthorized'],
    async run(t) {
      const key = await createKey(t, 'secret')
      t.check((await t.api.post(`/api-keys/${key.id}/revoke`)).status < 300, 'revoke was refused')
      t.expectStatus(await meWith(t, key.plaintext, 'revoked key'), 401)
    },
  },
  {
    id: 'api-keys/rotate',
    title: 'After a rotation both the old and the new secret work',
    rules: ['api-key-endpoints.rotate', 'authentication.key-lifecycle'],
    async run(t) {
      const key = await createKey(t, 'secret')
      const rotated = await t.api.post(`/api-keys/${key.id}/rotate`)
      t.check(rotated.status < 300, `rotate answered ${rotated.status}`)
      t.expectStatus(await meWith(t, key.plaintext, 'old key'), 200, 'the old key during the overlap')
      const fresh = newPlaintextIn(rotated.body, key.plaintext)
      if (fresh) t.expectStatus(await meWith(t, fresh, 'new key'), 200, 'the new key')
    },
  },
  {
    id: 'api-keys/rotation-overlap',
    title: 'The old secret works for 72 hours after a rotation, then answers 401',
    rules: ['api-key-endpoints.rotate', 'limits.rotation-overlap'],
    needs: ['sim'],
    async run(t) {
      const key = await createKey(t, 'secret')
      const rotated = await t.api.post(`/api-keys/${key.id}/rotate`)
      const fresh = t.present(newPlaintextIn(rotated.body, key.plaintext), 'the rotate answer holds no new key')
      await t.sim.advance(72 * HOUR - MINUTE)
      t.expectStatus(await meWith(t, key.plaintext, 'old key'), 200, 'a minute before the overlap ends')
      await t.sim.advance(2 * MINUTE)
      t.expectStatus(await meWith(t, key.plaintext, 'old key'), 401, 'a minute after the overlap ends')
      t.expectStatus(await meWith(t, fresh, 'new key'), 200)
    },
  },
])
