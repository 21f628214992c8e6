import { isDeepStrictEqual } from 'node:util'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../helpers/http.js'
import { startServe } from '../helpers/serve-process.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bula-import-crash-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

// Issue 12: an import is one journal line, so a crash keeps all of it or none (docs/security.md, "Imports").
describe('kill -9 during a state import', () => {
  // Seven restarts of `bula serve`: on a busy machine each takes seconds.
  it('leaves the merchant exactly as before or exactly as after, whenever it strikes', { timeout: 180_000 }, async () => {
    const dataFile = path.join(dir, 'data.json')
    let serve = await startServe({ dataFile, args: ['--quiet'] })
    const signup = await call(serve.baseUrl, 'POST', '/_sim/merchants', { body: { email: 'crash@example.test', name: 'Crash', tier: 'business' } })
    const key = signup.body.keys.secret as string
    const create = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await call(serve.baseUrl, 'POST', '/v1/checkout-sessions', { key, body: { amount: 100 + i, currency: 'FJD', metadata: { i: String(i) } }, headers: { 'idempotency-key': `c${i}-${n}` } })
      }
    }
    const exportState = async () => (await call(serve.baseUrl, 'GET', '/_sim/state', { key })).body
    await create(60)
    const before = await exportState()
    await create(140)
    const after = await exportState()
    expect(after.collections.checkoutSessions).toHaveLength(200)

    const outcomes: string[] = []
    for (const killAfterMs of [0, 2, 5, 10, 20, 40]) {
      expect((await call(serve.baseUrl, 'POST', '/_sim/state/import', { key, body: before })).status).toBe(200)
      const importing = call(serve.baseUrl, 'POST', '/_sim/state/import', { key, body: after }).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, killAfterMs))
      await serve.kill9()
      await importing
      serve = await startServe({ dataFile, args: ['--quiet'] })
      const found = await exportState()
      // Deep equality: an imported document keeps its values, not necessarily the order of its keys.
      const outcome = isDeepStrictEqual(found, before) ? 'before' : isDeepStrictEqual(found, after) ? 'after' : 'neither'
      if (outcome === 'neither') expect(found, `killed after ${killAfterMs} ms`).toEqual(after)
      outcomes.push(outcome)
    }
    // Once answered, the import is on disk: a crash right after keeps it.
    expect((await call(serve.baseUrl, 'POST', '/_sim/state/import', { key, body: after })).status).toBe(200)
    await serve.kill9()
    serve = await startServe({ dataFile, args: ['--quiet'] })
    expect(isDeepStrictEqual(await exportState(), after)).toBe(true)
    await serve.stop()
    expect(outcomes.every((outcome) => outcome === 'before' || outcome === 'after')).toBe(true)
  })
})
