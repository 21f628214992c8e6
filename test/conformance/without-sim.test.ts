import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runConformance, type ConformanceResult } from '../../src/conformance/index.js'
import { startApiOnlyProxy, type ApiOnlyProxy } from '../helpers/api-only-proxy.js'
import { signupMerchant, useTestServer } from '../helpers/http.js'

// "Another target": the simulator behind a proxy that serves only the
// service's own paths, as the real service would, with no /_sim.
describe('bula conformance against a target without /_sim', () => {
  const server = useTestServer()
  let proxy: ApiOnlyProxy
  let result: ConformanceResult

  beforeAll(async () => {
    proxy = await startApiOnlyProxy(server().baseUrl)
    const { keys } = await signupMerchant(server().baseUrl, 'business')
    result = await runConformance({ baseUrl: proxy.baseUrl, apiKey: keys.secret, publishableKey: keys.publishable })
  })
  afterAll(() => proxy?.close())

  it('knows the target has no /_sim', () => {
    expect(result.sim).toBe(false)
  })

  it('fails no case: each passes or is skipped with its reason', () => {
    expect(result.cases.filter((item) => item.outcome === 'fail')).toEqual([])
    for (const item of result.cases.filter((each) => each.outcome === 'skip')) expect(item.reason, item.id).toMatch(/\/_sim|Individual account/)
  })

  it('still runs every case that needs only the API, keys and a receiver', () => {
    // Only cases that need the simulator's controls, live keys (which only /_sim can mint) or another tier are skipped.
    expect(result.summary.passed).toBeGreaterThanOrEqual(80)
    const passed = new Set(result.cases.filter((item) => item.outcome === 'pass').map((item) => item.id))
    for (const id of ['checkout-sessions/amount-max', 'idempotency/replay', 'webhooks/signature', 'invoices/send', 'api-keys/revoke', 'authentication/publishable-forbidden']) {
      expect(passed, id).toContain(id)
    }
  })

  it('needs a working test key for such a target, and says so', async () => {
    await expect(runConformance({ baseUrl: proxy.baseUrl })).rejects.toMatchObject({ code: 'conformance_setup', message: expect.stringContaining('--api-key') })
    await expect(runConformance({ baseUrl: proxy.baseUrl, apiKey: `sk_test_${'0'.repeat(32)}` })).rejects.toMatchObject({ message: expect.stringContaining('refused the API key') })
    await expect(runConformance({ baseUrl: proxy.baseUrl, apiKey: `sk_live_${'0'.repeat(32)}` })).rejects.toMatchObject({ message: expect.stringContaining('test secret key') })
  })

  it('ignores given keys where /_sim signs up a merchant per case', async () => {
    const result = await runConformance({ baseUrl: server().baseUrl, apiKey: `sk_test_${'0'.repeat(32)}`, only: ['merchants/me'] })
    expect(result.cases).toEqual([expect.objectContaining({ id: 'merchants/me', outcome: 'pass' })])
  })
})
