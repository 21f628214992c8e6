import { describe, expect, it } from 'vitest'
import { importMerchantStateRequestSchema } from '../../src/schemas/index.js'
import { MAX_BODY_CONTAINERS, MAX_BODY_SHAPES } from '../../server/http/json-body.js'
import { call, signupMerchant, useTestServer } from '../helpers/http.js'

// docs/security.md ("State files"): POST /_sim/state/import takes up to 16 MiB, and a
// hostile body that fills it must be a 400, not the end of every merchant's simulator.

const server = useTestServer()

describe('a state import of millions of bad documents', () => {
  it('is refused with one issue per collection, at its first bad document, however many follow', () => {
    const result = importMerchantStateRequestSchema.safeParse({
      format: 'bula-state',
      version: 1,
      collections: { checkoutSessions: [{ id: 'cs_1' }, ...Array.from({ length: 10_000 }, () => ({}))], events: Array(10_000).fill(0) },
    })
    // One per collection; one per bad item was 20,000 here, and 21 million `{}` in 60 MiB ran the server out of memory.
    expect(result.error?.issues).toHaveLength(2)
    expect(result.error?.issues[0]).toMatchObject({ path: ['collections', 'checkoutSessions', 1, 'id'], message: 'Invalid input: expected string, received undefined' })
  })

  it('answers a body of as many empty objects as it takes with 400 naming the first', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const rawBody = importOf(Array(MAX_BODY_CONTAINERS - 3).fill('{}').join(','))
    const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'collections.checkoutSessions[0].id' })
  })
})

/** An import whose checkoutSessions list is `items`, inside three objects and arrays (the body, `collections`, the list). */
const importOf = (items: string): string => `{"format":"bula-state","version":1,"collections":{"checkoutSessions":[${items}]}}`

describe('a body of more objects and arrays than any state file needs', () => {
  // JSON.parse alone of five million `{}` (a 16 MiB import) held every other request 1.4 s.
  const tooMany = importOf(Array(MAX_BODY_CONTAINERS).fill('{}').join(','))

  it('is 413 before it is parsed, however it comes', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    // The simulator's own reader, and express.json's (any Content-Type but the two plain spellings).
    for (const contentType of ['application/json', 'application/json;charset=utf-8']) {
      const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody: tooMany, headers: { 'content-type': contentType } })
      expect(response.status, contentType).toBe(413)
      expect(response.body.error, contentType).toEqual({ code: 'payload_too_large', message: 'The body holds more than 500,000 objects and arrays.' })
    }
  })

  it('is 413 for a million `[]` and a million `0`-holding arrays alike, and leaves the merchant as it was', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const before = await call(server().baseUrl, 'GET', '/_sim/state', { key: keys.secret })
    for (const items of [Array(1_000_000).fill('[]'), Array(600_000).fill('[0]')]) {
      const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody: importOf(items.join(',')) })
      expect(response.status).toBe(413)
    }
    expect((await call(server().baseUrl, 'GET', '/_sim/state', { key: keys.secret })).body).toEqual(before.body)
  })

  // Found by adversarial passes: 16 MiB of 1.3 million different names held every other request for about 4 s, and
  // 16 MiB of objects of 8 keys drawn in any order from 20,000 names (fewer than 100,000 names in all) for 2.5 s.
  const SHAPES_REFUSED = `The body's objects have more than ${MAX_BODY_SHAPES.toLocaleString('en')} different runs of key names (a name, or an order, new to the body).`
  const names = (count: number, offset = 0) => Array.from({ length: count }, (_, i) => `"name${i + offset}":1`)

  it('is 413 for more object shapes than any state file makes: new names in one object or many, or known names in new orders', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const oneObject = `{${names(MAX_BODY_SHAPES + 1).join(',')}}`
    const manyObjects = Array.from({ length: 2_001 }, (_, o) => `{${names(100, o * 100).join(',')}}`).join(',')
    // 1,000 names, 8 to an object in an order of their own (a seeded shuffle): about 8 new shapes an object.
    let seed = 7
    const next = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0)
    const shuffled = Array.from({ length: 30_000 }, () => `{${Array.from({ length: 8 }, () => `"n${(next() >>> 16) % 1_000}":1`).join(',')}}`).join(',')
    for (const items of [oneObject, manyObjects, shuffled]) {
      const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody: importOf(items) })
      expect(response.status).toBe(413)
      expect(response.body.error).toEqual({ code: 'payload_too_large', message: SHAPES_REFUSED })
    }
  })

  it('takes a key name used again and a colon inside a string as no new shape, and an export whose sessions each have metadata keys of their own', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    // 200,000 keys of two names; 150,000 different values that hold a colon after an escaped quote; 5,100 objects of 20
    // names of their own (102,000 shapes, as 5,100 sessions whose metadata keys no other session uses). Parsed, then
    // refused for what the file lacks.
    const repeated = Array.from({ length: 100_000 }, (_, i) => `{"id":"x${i}","amount":${i}}`).join(',')
    const colons = `{"id":[${Array.from({ length: 150_000 }, (_, i) => `"v${i}\\":"`).join(',')}]}`
    const ownMetadata = Array.from({ length: 5_100 }, (_, o) => `{"metadata":{${names(20, o * 20).join(',')}}}`).join(',')
    for (const [items, param] of [[repeated, 'merchants'], [colons, 'collections.checkoutSessions[0].id'], [ownMetadata, 'collections.checkoutSessions[0].id']]) {
      const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody: importOf(items!) })
      expect(response.status).toBe(400)
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param })
    }
  })

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    // One string of 1.2 million brackets, with an escaped quote first that must not end it.
    const rawBody = importOf(`{"id":"\\"${'{['.repeat(600_000)}"}`)
    const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody })
    // Parsed and checked: refused for what the file lacks (its `merchants`), not for its size.
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'merchants' })
  })
})
