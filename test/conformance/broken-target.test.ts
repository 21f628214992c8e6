import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runConformance, type ConformanceResult } from '../../src/conformance/index.js'
import { startApiOnlyProxy, type ApiOnlyProxy } from '../helpers/api-only-proxy.js'
import { signupMerchant, useTestServer } from '../helpers/http.js'

const SNAPSHOTS = path.resolve(import.meta.dirname, 'snapshots')

// The cases must be able to fail: a target that breaks three rules, each
// caught by its case and shown by --compare against the simulator's recordings.
describe('bula conformance against a target that breaks the spec', () => {
  const server = useTestServer()
  let proxy: ApiOnlyProxy
  let result: ConformanceResult

  beforeAll(async () => {
    proxy = await startApiOnlyProxy(server().baseUrl, (request, response) => {
      const body = response.body as Record<string, unknown> & { error?: Record<string, unknown> }
      // A second cancel that "succeeds" instead of 409 invalid_state.
      if (request.path.endsWith('/cancel') && response.status === 409) return { status: 200, body: { status: 'cancelled' } }
      // Sessions without their hosted page.
      if (request.path === '/v1/checkout-sessions' && response.status === 201) return { status: 201, body: { ...body, hostedUrl: undefined } }
      // Errors without a message.
      if (body.error) return { status: response.status, body: { error: { code: body.error.code } } }
      return undefined
    })
    const { keys } = await signupMerchant(server().baseUrl, 'business')
    result = await runConformance({
      baseUrl: proxy.baseUrl,
      apiKey: keys.secret,
      publishableKey: keys.publishable,
      only: ['checkout-sessions/create', 'checkout-sessions/cancel-twice', 'errors/envelope', 'checkout-sessions/cancel'],
      compare: SNAPSHOTS,
    })
  })
  afterAll(() => proxy?.close())

  it('fails each case whose rule the target breaks, saying what came back', () => {
    const failed = Object.fromEntries(result.cases.filter((item) => item.outcome === 'fail').map((item) => [item.id, item.reason]))
    expect(failed).toEqual({
      'checkout-sessions/create': expect.stringContaining('hostedUrl is not an address'),
      'checkout-sessions/cancel-twice': expect.stringContaining('answered 200, expected 409 invalid_state'),
      'errors/envelope': expect.stringContaining('without the error envelope'),
    })
    expect(result.cases.find((item) => item.id === 'checkout-sessions/cancel')?.outcome).toBe('pass')
    expect(result.passed).toBe(false)
  })

  it('shows where it parts from the simulator\'s recordings', () => {
    const messages = result.differences!.map((difference) => `${difference.case}: ${difference.message}`)
    expect(messages.filter((message) => message.startsWith('checkout-sessions/create: outcome: pass → fail'))).toHaveLength(1)
    expect(messages).toContain('checkout-sessions/create: steps[0].response.body.hostedUrl: missing, was "<url>"')
    expect(messages).toContain('checkout-sessions/cancel-twice: steps[2].response.status: 409 → 200')
  })
})
