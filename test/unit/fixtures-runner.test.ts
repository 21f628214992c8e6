import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BulaClient, type RequestOptions } from '../../src/client/bula-client.js'
import { ApiError } from '../../src/errors.js'
import { loadFixture, type ExpectedError, type Fixture } from '../../src/fixtures/fixture.js'
import { describeStepResult, namedResults, runFixture, runFixtureFiles } from '../../src/fixtures/runner.js'

/** A client whose every request is recorded and answered by `answer`, which may throw an ApiError. */
function fakeClient(answer: (options: RequestOptions) => unknown) {
  const requests: RequestOptions[] = []
  const client = {
    request: async (options: RequestOptions) => {
      requests.push(options)
      return answer(options)
    },
  } as unknown as BulaClient
  return { client, requests }
}

const ALREADY_PAID = new ApiError(409, 'invalid_state', 'This Checkout Session has already succeeded.')

/** Pays once; any second pay is refused as the simulator does. */
const simulator = () => {
  let paid = false
  return fakeClient(({ path }) => {
    if (!path.endsWith('/pay')) return { id: 'cs_1', status: 'pending' }
    if (paid) throw ALREADY_PAID
    paid = true
    return { checkoutSession: { id: 'cs_1', status: 'succeeded' }, paymentIntent: { id: 'pi_1', status: 'succeeded' } }
  })
}

const payTwice = (expect: ExpectedError): Fixture => ({
  steps: [
    { name: 'session', method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: true, body: { amount: 1500, currency: 'FJD' } },
    { name: 'paid', method: 'POST', path: '/_sim/checkout-sessions/${session:id}/pay', body: { outcome: 'succeeded' } },
    { name: 'again', method: 'POST', path: '/_sim/checkout-sessions/${paid:checkoutSession.id}/pay', body: { outcome: 'succeeded' }, expect },
  ],
})

describe('expected errors', () => {
  it.each([
    ['status and code', { status: 409, code: 'invalid_state' }],
    ['the status alone', { status: 409 }],
    ['the code alone', { code: 'invalid_state' }],
  ])('passes a step that fails as expected (%s), keeping the envelope as its response', async (_what, expected) => {
    const { client } = simulator()
    const steps = await runFixture(payTwice(expected), { client, file: 'pay.json' })
    expect(steps[2]).toMatchObject({
      name: 'again',
      error: { status: 409, code: 'invalid_state' },
      response: { error: { code: 'invalid_state', message: ALREADY_PAID.message } },
    })
    expect(describeStepResult(steps[2]!)).toBe('409 invalid_state (expected)')
    expect(steps[0]!.error).toBeUndefined()
  })

  it('stops when the expected error does not come, saying what was expected and what came', async () => {
    const mismatch = await runFixture(payTwice({ status: 404, code: 'not_found' }), { client: simulator().client, file: 'pay.json' }).catch(
      (caught: unknown) => caught,
    )
    expect(mismatch).toMatchObject({
      code: 'fixture_failed',
      message:
        'pay.json: Step 3 "again" (POST /_sim/checkout-sessions/cs_1/pay): expected 404 not_found, got 409 invalid_state: This Checkout Session has already succeeded.',
    })
    const { client } = fakeClient(() => ({ id: 'cs_1', checkoutSession: { id: 'cs_1' } }))
    await expect(runFixture(payTwice({ code: 'invalid_state' }), { client, file: 'pay.json' })).rejects.toMatchObject({
      code: 'fixture_failed',
      message: 'pay.json: Step 3 "again" (POST /_sim/checkout-sessions/cs_1/pay): expected the error invalid_state, but it succeeded.',
    })
    await expect(runFixture(payTwice({ status: 409 }), { client })).rejects.toMatchObject({
      message: 'Step 3 "again" (POST /_sim/checkout-sessions/cs_1/pay): expected an error 409, but it succeeded.',
    })
  })

  it('never takes a connection failure for the expected error', async () => {
    const { client } = fakeClient(({ path }) => {
      if (path.endsWith('/pay')) throw new ApiError(0, 'connection_failed', 'Could not reach the simulator.')
      return { id: 'cs_1' }
    })
    const fixture: Fixture = { steps: [{ method: 'POST', path: '/_sim/checkout-sessions/cs_1/pay', expect: { code: 'connection_failed' } }] }
    await expect(runFixture(fixture, { client, file: 'f.json' })).rejects.toMatchObject({
      code: 'connection_failed',
      message: 'f.json: Step 1 (POST /_sim/checkout-sessions/cs_1/pay) failed: Could not reach the simulator.',
    })
  })

  it('lets later steps refer to an expected error', async () => {
    const { client, requests } = simulator()
    const fixture = payTwice({ status: 409 })
    fixture.steps.push({ method: 'GET', path: '/v1/why/${again:error.code}' })
    await runFixture(fixture, { client })
    expect(requests.at(-1)?.path).toBe('/v1/why/invalid_state')
  })
})

describe('idempotency keys', () => {
  it('sends a given key, references resolved, so that two steps can replay one create', async () => {
    const { client, requests } = fakeClient(() => ({ id: 'cs_1' }))
    const fixture: Fixture = {
      steps: [
        { name: 'first', method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: 'order-${env:ORDER}', body: { amount: 1 } },
        { method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: 'order-${env:ORDER}', body: { amount: 1 } },
        { method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: '${first:id}', body: { amount: 1 } },
      ],
    }
    const steps = await runFixture(fixture, { client, env: { ORDER: '42' } })
    expect(requests.map((request) => request.idempotencyKey)).toEqual(['order-42', 'order-42', 'cs_1'])
    expect(steps.map((step) => step.idempotencyKey)).toEqual(['order-42', 'order-42', 'cs_1'])
    await expect(runFixture(fixture, { client, env: {} })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: 'Step 1 "first": ${env:ORDER}: the environment variable ORDER is not set.',
    })
  })

  // `${env:NOPE` with no } was sent as text, and reached the simulator as the literal path `$%7Benv:NOPE`.
  it('refuses a reference that is not closed before sending anything, and takes $${ as text', async () => {
    const { client, requests } = fakeClient(() => ({ id: 'cs_1' }))
    const unclosed: Fixture = { steps: [{ method: 'GET', path: '/v1/checkout-sessions/${env:NOPE' }] }
    await expect(runFixture(unclosed, { client, env: {} })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: 'Step 1: "${env:NOPE" starts a reference that is not closed: end it with }, or write $${ for the text ${.',
    })
    expect(requests).toEqual([])
    const escaped: Fixture = { steps: [{ method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: 'k', body: { metadata: { note: 'cost $${5' } } }] }
    await runFixture(escaped, { client, env: {} })
    expect(requests).toHaveLength(1)
  })
})

describe('named results', () => {
  it('are the responses of the named steps, by name, in order', async () => {
    const steps = await runFixture(payTwice({ status: 409 }), { client: simulator().client })
    const results = namedResults(steps)
    expect(Object.keys(results)).toEqual(['session', 'paid', 'again'])
    expect(results.session).toEqual({ id: 'cs_1', status: 'pending' })
    expect(namedResults([{ name: null, method: 'GET', path: '/x', idempotencyKey: null, response: 1 }])).toEqual({})
  })

  it('describes what each step returned', () => {
    const step = (response: unknown) => ({ name: null, method: 'GET' as const, path: '/x', idempotencyKey: null, response })
    expect(describeStepResult(step({ id: 'cs_1', status: 'pending' }))).toBe('cs_1 (pending)')
    expect(describeStepResult(step({ id: 12, status: 'sent' }))).toBe('invoice 12 (sent)')
    expect(describeStepResult(step({ checkoutSession: { id: 'cs_1', status: 'failed' }, paymentIntent: { id: 'pi_1', status: 'failed' } }))).toBe(
      'checkoutSession cs_1 (failed), paymentIntent pi_1 (failed)',
    )
  })
})

describe('runFixtureFiles', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bula-fixture-files-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  const write = async (name: string, fixture: unknown): Promise<string> => {
    const file = join(dir, name)
    await writeFile(file, JSON.stringify(fixture))
    return file
  }

  it('runs the files in order, each with its own step names', async () => {
    const one = await write('one.json', { steps: [{ name: 'session', method: 'POST', path: '/v1/checkout-sessions', body: { amount: 1 } }] })
    const { client, requests } = fakeClient(({ body }) => ({ id: `cs_${(body as { amount: number }).amount}` }))
    const done = await runFixtureFiles([one, one], { client })
    expect(done.map((file) => [file.file, file.results])).toEqual([
      [one, { session: { id: 'cs_1' } }],
      [one, { session: { id: 'cs_1' } }],
    ])
    expect(requests).toHaveLength(2)
  })

  it('checks every file before sending anything, naming the file at fault', async () => {
    const good = await write('good.json', { steps: [{ method: 'GET', path: '/v1/merchants/me' }] })
    const dangling = await write('dangling.json', { steps: [{ method: 'GET', path: '/v1/checkout-sessions/${session:id}' }] })
    const invalid = await write('invalid.json', { steps: [{ method: 'GET', path: '/x', expect: {} }] })
    const { client, requests } = fakeClient(() => ({}))
    await expect(runFixtureFiles([good, dangling], { client, env: {} })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: `${dangling}: Step 1: \${session:id}: no earlier step is named "session".`,
    })
    await expect(runFixtureFiles([good, invalid], { client })).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: expect.stringMatching(/invalid\.json is invalid at steps\[0\]\.expect: give the expected error's status, code or both/),
    })
    expect(requests).toEqual([])
  })

  it('refuses a body nested deeper than the simulator takes, before any walk of it could overflow', async () => {
    const file = join(dir, 'deep.json')
    await writeFile(file, `{"steps":[{"method":"POST","path":"/x","body":${'['.repeat(5_000)}${']'.repeat(5_000)}}]}`)
    await expect(loadFixture(file)).rejects.toMatchObject({ code: 'invalid_fixture', message: expect.stringMatching(/at steps\[0\]\.body: nests objects and arrays more than 64 levels deep/) })
  })

  it('refuses a fixture that is a folder, or a device that never ends, naming it, without reading it all', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'bula-fixture-folder-'))
    await expect(loadFixture(folder)).rejects.toMatchObject({ code: 'invalid_fixture', message: `Cannot read the fixture ${folder}: it is a folder.` })
    await rm(folder, { recursive: true })
    await expect(loadFixture('/dev/zero')).rejects.toMatchObject({
      code: 'invalid_fixture',
      message: 'Cannot read the fixture /dev/zero: it is larger than 16 MiB, which no fixture needs.',
    })
  })

  // Windows editors and PowerShell's Out-File write one: it was refused with an invisible "Unexpected token".
  it('reads a fixture that starts with a UTF-8 byte order mark', async () => {
    const file = join(dir, 'bom.json')
    await writeFile(file, `\uFEFF${JSON.stringify({ steps: [{ method: 'GET', path: '/v1/merchants/me' }] })}`)
    expect((await loadFixture(file)).steps).toHaveLength(1)
  })

  it('refuses an expected status that is not an error', async () => {
    const file = await write('status.json', { steps: [{ method: 'GET', path: '/x', expect: { status: 200 } }] })
    await expect(loadFixture(file)).rejects.toMatchObject({ code: 'invalid_fixture', message: expect.stringContaining('at steps[0].expect.status') })
  })
})

describe('fault steps', () => {
  const write = async (name: string, fixture: unknown) => {
    const dir = await mkdtemp(join(tmpdir(), 'bula-fault-step-'))
    const file = join(dir, name)
    await writeFile(file, JSON.stringify(fixture))
    return { file, cleanup: () => rm(dir, { recursive: true, force: true }) }
  }

  it('are checked with the simulator\'s own fault schema when the file is read', async () => {
    for (const [step, where] of [
      [{ fault: { route: '*', action: 'explode' } }, 'steps[0].fault.action'],
      [{ fault: { route: '*', action: 'delay' } }, 'steps[0].fault.delayMs'],
      [{ fault: { route: '*', action: 'reset' }, expect: { status: 500 } }, 'steps[0]'],
      [{ method: 'GET', path: '/v1/merchants/me', expects: { status: 404 } }, 'steps[0]'],
    ] as const) {
      const { file, cleanup } = await write('faults.json', { steps: [step] })
      await expect(loadFixture(file)).rejects.toMatchObject({ code: 'invalid_fixture', message: expect.stringContaining(`invalid at ${where}:`) })
      await cleanup()
    }
  })

  it('send POST /_sim/faults, and their response is the fault', async () => {
    const { client, requests } = fakeClient(({ path, body }) => (path === '/_sim/faults' ? { fault: { id: 'flt_1', ...(body as object) } } : { id: 'cs_1' }))
    const steps = await runFixture(
      { steps: [{ name: 'lost', fault: { route: 'POST /v1/checkout-sessions', action: 'lose_response', times: 1, probability: 1, seed: 0 } }, { method: 'GET', path: '/v1/merchants/me' }] },
      // The client's own addFault(), over the recording request().
      { client: Object.assign(Object.create(BulaClient.prototype) as BulaClient, { request: client.request }) },
    )
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/_sim/faults', body: { route: 'POST /v1/checkout-sessions', action: 'lose_response' } })
    expect(steps[0]).toMatchObject({ name: 'lost', method: 'POST', path: '/_sim/faults', response: { id: 'flt_1', action: 'lose_response' } })
  })
})
