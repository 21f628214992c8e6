import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BulaClient, RequestOptions } from '../../src/client/bula-client.js'
import { ApiError } from '../../src/errors.js'
import { loadFixture, triggerFixturePath, triggerRecipes, type Fixture } from '../../src/fixtures/fixture.js'
import { referencesIn, resolveReferences, type ReferenceContext } from '../../src/fixtures/references.js'
import { runFixture } from '../../src/fixtures/runner.js'
import { EVENT_TYPES } from '../../src/schemas/index.js'

const context = (results: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): ReferenceContext => ({
  results: new Map(Object.entries(results)),
  env,
})

const SESSION = { id: 'cs_1', amount: 1500, metadata: { order: 'A/1' }, items: [{ id: 'it_1' }, { id: 'it_2' }] }

describe('resolveReferences', () => {
  it('keeps the type of a value that a whole string refers to', () => {
    const resolved = resolveReferences(
      { amount: '${session:amount}', metadata: '${session:metadata}', second: '${session:items[1].id}', same: '${session:items.1.id}' },
      context({ session: SESSION }),
    )
    expect(resolved).toEqual({ amount: 1500, metadata: { order: 'A/1' }, second: 'it_2', same: 'it_2' })
  })

  it('writes values into longer strings, encoded as asked, at any depth and in keys', () => {
    const ctx = context({ session: SESSION }, { ORDER: '42' })
    expect(resolveReferences('/v1/x/${session:metadata.order}/pay', ctx, encodeURIComponent)).toBe('/v1/x/A%2F1/pay')
    expect(resolveReferences(['order ${env:ORDER} of ${session:amount}', { 'k_${env:ORDER}': [true, null, 3] }], ctx)).toEqual([
      'order 42 of 1500',
      { k_42: [true, null, 3] },
    ])
  })

  it('leaves strings without references, numbers and undefined alone', () => {
    expect(resolveReferences('${not a reference} $x {y}', context({}))).toBe('${not a reference} $x {y}')
    expect(resolveReferences(undefined, context({}))).toBeUndefined()
  })

  it.each([
    ['${pay:id}', /\$\{pay:id\}: no earlier step is named "pay"/],
    ['${session:customer.id}', /\$\{session:customer\.id\}: the response of step "session" has no customer\.id/],
    ['${session:items[5].id}', /has no items\[5\]\.id/],
    ['${session:items..id}', /is not a JSON path/],
    ['${env:MISSING}', /the environment variable MISSING is not set/],
    // Set to the empty string is not "not set", and `${env:}` names none (it said "the environment variable  is not set").
    ['${env:EMPTY}', /the environment variable EMPTY is set but empty/],
    ['${env:}', /^\$\{env:\}: it names no environment variable\.$/],
    ['/x/${session:metadata}', /is an object or array/],
  ])('names the reference it cannot resolve: %s', (text, message) => {
    expect(() => resolveReferences(text, context({ session: SESSION }, { EMPTY: '' }))).toThrow(message)
  })

  it('finds the references in keys and values at any depth', () => {
    expect(referencesIn({ a: ['${s:id}', { 'x${env:K}': '${t:data[0].id} and ${u:v}' }] }).map((reference) => reference.text)).toEqual([
      '${s:id}',
      '${env:K}',
      '${t:data[0].id}',
      '${u:v}',
    ])
  })
})

/** A client whose every request is recorded and answered by `answer`. */
function fakeClient(answer: (options: RequestOptions, index: number) => unknown) {
  const requests: RequestOptions[] = []
  const client = {
    request: async (options: RequestOptions) => {
      requests.push(options)
      return answer(options, requests.length - 1)
    },
  } as unknown as BulaClient
  return { client, requests }
}

const PAY_FIXTURE: Fixture = {
  steps: [
    { name: 'session', method: 'POST', path: '/v1/checkout-sessions', body: { amount: 1500, currency: 'FJD' }, idempotencyKey: true },
    { name: 'pay', method: 'POST', path: '/_sim/checkout-sessions/${session:id}/pay', body: { outcome: 'succeeded', note: '${env:NOTE}' } },
    { method: 'GET', path: '/v1/checkout-sessions/${pay:checkoutSession.id}' },
  ],
}

describe('runFixture', () => {
  it('runs the steps in order with references resolved and a fresh idempotency key per step', async () => {
    const { client, requests } = fakeClient((_options, index) =>
      [{ id: 'cs 1' }, { checkoutSession: { id: 'cs 1', status: 'succeeded' } }, { id: 'cs 1', status: 'succeeded' }][index],
    )
    const results = await runFixture(PAY_FIXTURE, { client, env: { NOTE: 'hi' } })
    expect(requests).toEqual([
      { method: 'POST', path: '/v1/checkout-sessions', body: { amount: 1500, currency: 'FJD' }, idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { method: 'POST', path: '/_sim/checkout-sessions/cs%201/pay', body: { outcome: 'succeeded', note: 'hi' }, idempotencyKey: undefined },
      { method: 'GET', path: '/v1/checkout-sessions/cs%201', body: undefined, idempotencyKey: undefined },
    ])
    expect(results.map((result) => [result.name, result.path])).toEqual([
      ['session', '/v1/checkout-sessions'],
      ['pay', '/_sim/checkout-sessions/cs%201/pay'],
      [null, '/v1/checkout-sessions/cs%201'],
    ])
    expect(results[0]?.idempotencyKey).toBe(requests[0]?.idempotencyKey)
    expect(results[2]?.response).toEqual({ id: 'cs 1', status: 'succeeded' })

    const again = fakeClient(() => ({ id: 'cs_2', checkoutSession: { id: 'cs_2' } }))
    await runFixture(PAY_FIXTURE, { client: again.client, env: { NOTE: 'hi' } })
    expect(again.requests[0]?.idempotencyKey).not.toBe(requests[0]?.idempotencyKey)
  })

  it('checks every reference before the first request', async () => {
    const { client, requests } = fakeClient(() => ({}))
    await expect(runFixture(PAY_FIXTURE, { client, env: {} })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: 'Step 2 "pay": ${env:NOTE}: the environment variable NOTE is not set.',
    })
    const later: Fixture = { steps: [{ method: 'GET', path: '/v1/x/${second:id}' }, { name: 'second', method: 'GET', path: '/v1/y' }] }
    await expect(runFixture(later, { client, env: {} })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: 'Step 1: ${second:id}: no earlier step is named "second".',
    })
    expect(requests).toEqual([])
  })

  it('names the failing step and keeps the simulator\'s error code', async () => {
    const { client, requests } = fakeClient((options) => {
      if (options.path.endsWith('/pay')) throw new ApiError(409, 'invalid_state', 'This Checkout Session was already cancelled.')
      return { id: 'cs_1' }
    })
    const error = await runFixture(PAY_FIXTURE, { client, env: { NOTE: 'x' } }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 409,
      code: 'invalid_state',
      message: 'Step 2 "pay" (POST /_sim/checkout-sessions/cs_1/pay) failed: This Checkout Session was already cancelled.',
    })
    expect(requests).toHaveLength(2)
  })

  it('names the step whose reference finds nothing in an earlier response', async () => {
    const { client } = fakeClient(() => ({ id: 'cs_1' }))
    await expect(runFixture(PAY_FIXTURE, { client, env: { NOTE: 'x' } })).rejects.toMatchObject({
      code: 'fixture_failed',
      message: 'Step 3: ${pay:checkoutSession.id}: the response of step "pay" has no checkoutSession.id.',
    })
  })
})

describe('fixture files', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bula-fixtures-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('ships a valid recipe for each event trigger knows, named after a real event type', async () => {
    const recipes = await triggerRecipes()
    expect(recipes.map((recipe) => recipe.event)).toEqual([
      'checkout_session.cancelled',
      'checkout_session.failed',
      'checkout_session.succeeded',
      'payment.failed',
      'payment.processing',
      'payment.succeeded',
    ])
    for (const { event, description } of recipes) {
      expect(EVENT_TYPES).toContain(event)
      expect(description).not.toBe('')
      // Every reference points at an earlier step: a client that answers ids resolves them all.
      const { client } = fakeClient(() => ({ id: 'cs_1' }))
      await expect(runFixture(await loadFixture(triggerFixturePath(event)), { client })).resolves.toBeDefined()
    }
  })

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['no steps', '{"steps": []}', /invalid at steps/],
    ['an unknown field', '{"steps": [{"method": "GET", "path": "/x", "extra": 1}]}', /invalid at steps\[0\]/],
    ['a relative path', '{"steps": [{"method": "GET", "path": "v1/x"}]}', /invalid at steps\[0\]\.path/],
    ['the reserved name env', '{"steps": [{"name": "env", "method": "GET", "path": "/x"}]}', /reserved/],
    ['a name used twice', '{"steps": [{"name": "a", "method": "GET", "path": "/x"}, {"name": "a", "method": "GET", "path": "/y"}]}', /names an earlier step/],
  ])('refuses a fixture with %s, naming the file', async (_what, text, message) => {
    const file = join(dir, 'bad.json')
    await writeFile(file, text)
    const error = await loadFixture(file).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'invalid_fixture' })
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toMatch(message)
  })
})
