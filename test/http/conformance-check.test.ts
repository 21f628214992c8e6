// The check every HTTP test's answers go through (test/helpers/conformance.ts):
// it must still catch what the document does not describe when the compiled
// schemas come from another simulator's identical document.
import { describe, expect, it } from 'vitest'
import { checkConformance, takeViolations } from '../helpers/conformance.js'
import { call, signupMerchant, useTestServer } from '../helpers/http.js'

const first = useTestServer()
const second = useTestServer()

describe('the answers check', () => {
  it('holds a second simulator to the same document: an undeclared field, a missing one and an undocumented status are caught', async () => {
    const { keys } = await signupMerchant(first().baseUrl)
    expect((await call(first().baseUrl, 'GET', '/v1/merchants/me', { key: keys.secret })).status).toBe(200)
    const { keys: other } = await signupMerchant(second().baseUrl)
    const me = await call(second().baseUrl, 'GET', '/v1/merchants/me', { key: other.secret })
    expect(takeViolations()).toEqual([])

    const { id: _id, ...withoutId } = me.body
    await checkConformance(second().baseUrl, 'GET', '/v1/merchants/me', 200, me.headers, { ...me.body, zz_undeclared: 1 })
    await checkConformance(second().baseUrl, 'GET', '/v1/merchants/me', 200, me.headers, withoutId)
    await checkConformance(second().baseUrl, 'GET', '/v1/merchants/me', 418, me.headers, me.body)
    const found = takeViolations()
    expect(found).toHaveLength(3)
    expect(found[0]).toMatch(/^GET \/v1\/merchants\/me → 200: .*unevaluated properties/)
    expect(found[1]).toMatch(/^GET \/v1\/merchants\/me → 200: .*must have required property 'id'/)
    expect(found[2]).toMatch(/^GET \/v1\/merchants\/me → 418: status not documented/)
  })
})
