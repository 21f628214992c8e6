import { describe, expect, it } from 'vitest'
import { importMerchantStateRequestSchema } from '../../src/schemas/index.js'
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

  it('answers a body of a million empty objects with 400 naming the first', async () => {
    const { keys } = await signupMerchant(server().baseUrl)
    const rawBody = `{"format":"bula-state","version":1,"collections":{"checkoutSessions":[${Array(1_000_000).fill('{}').join(',')}]}}`
    const response = await call(server().baseUrl, 'POST', '/_sim/state/import', { key: keys.secret, rawBody, headers: { 'content-type': 'application/json' } })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'collections.checkoutSessions[0].id' })
  })
})
