// "Test your retries" (docs/faults-and-doctor.md), as a merchant's own suite
// writes it with `bula-tools/testing`: the simulator loses the answer of a
// create, drops the connection, or answers 503, and the client must end up
// with exactly one Checkout Session. A client that makes a new key for each
// attempt makes two, and doctor says so.
import { startSimulator, type Simulator, type TestMerchant } from 'bula-tools/testing'
import { execa } from 'execa'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.js'
import { badCreateSession, goodCreateSession, type Shop } from '../helpers/sample-clients.js'

let sim: Simulator
beforeAll(async () => {
  sim = await startSimulator()
})
afterAll(() => sim.close())

async function shopWith(fault: { action: 'lose_response' | 'reset' | 'error'; status?: 503 }): Promise<{ merchant: TestMerchant; shop: Shop }> {
  const merchant = await sim.createMerchant('business')
  await sim.faults.add({ merchant, route: 'POST /v1/checkout-sessions', ...fault })
  return { merchant, shop: { baseUrl: sim.baseUrl, secretKey: merchant.secretKey } }
}

const sessionsOf = async (merchant: TestMerchant) => {
  const response = await fetch(`${sim.baseUrl}/v1/checkout-sessions`, { headers: { authorization: `Bearer ${merchant.secretKey}` } })
  return ((await response.json()) as { data: { id: string }[] }).data
}

const pay = (merchant: TestMerchant, id: string) =>
  fetch(`${sim.baseUrl}/_sim/checkout-sessions/${id}/pay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'succeeded' }),
  })

describe('a client that retries a create with the same Idempotency-Key', () => {
  it('gets the original session back, marked Idempotent-Replayed, after the answer was lost', async () => {
    const { merchant, shop } = await shopWith({ action: 'lose_response' })
    const result = await goodCreateSession(shop, { id: '1042', amount: 4550 })
    expect(result).toMatchObject({ status: 201, replayed: true, attempts: 2 })
    expect(await sessionsOf(merchant)).toEqual([expect.objectContaining({ id: result.session.id })])
    await pay(merchant, result.session.id)
    expect(sim.events(merchant).map((event) => event.type)).toEqual(['payment.processing', 'payment.succeeded', 'checkout_session.succeeded'])
    expect(sim.events(merchant, { type: 'checkout_session.succeeded' }).map((event) => event.data.object.id)).toEqual([result.session.id])
    expect((await sim.doctor(merchant)).findings.map((finding) => finding.check)).not.toContain('create-retried-with-new-key')
  })

  it.each([
    ['reset' as const, undefined],
    ['error' as const, 503 as const],
  ])('makes exactly one session through a %s', async (action, status) => {
    const { merchant, shop } = await shopWith({ action, status })
    const result = await goodCreateSession(shop, { id: '1043', amount: 900 })
    // Nothing was made the first time, so the retry does the work: a first answer, not a replay.
    expect(result).toMatchObject({ status: 201, replayed: false, attempts: 2 })
    expect(await sessionsOf(merchant)).toHaveLength(1)
    expect(await sim.faults.list(merchant)).toEqual([])
  })
})

describe('a client that makes a new key for each attempt', () => {
  it('makes two sessions when an answer is lost, and doctor names both', async () => {
    const { merchant, shop } = await shopWith({ action: 'lose_response' })
    const result = await badCreateSession(shop, { id: '1042', amount: 4550 })
    expect(result).toMatchObject({ status: 201, replayed: false, attempts: 2 })
    const sessions = await sessionsOf(merchant)
    expect(sessions).toHaveLength(2)
    const report = await sim.doctor(merchant)
    const finding = report.findings.find((found) => found.check === 'create-retried-with-new-key')
    expect(finding).toMatchObject({ severity: 'error', title: '1 create retried with a new Idempotency-Key: 1 duplicate Checkout Session made' })
    expect(finding!.evidence.map((item) => item.objectId).sort()).toEqual(sessions.map((session) => session.id).sort())
    expect(report.errors).toBeGreaterThan(0)
  })
})

describe('sim.faults', () => {
  it('adds, lists, removes and clears, and refuses what the API would', async () => {
    const merchant = await sim.createMerchant('business')
    const fault = await sim.faults.add({ merchant, route: 'GET /v1/checkout-sessions/{id}', action: 'delay', delayMs: 50, times: 3 })
    expect(fault).toMatchObject({ route: 'GET /v1/checkout-sessions/{id}', action: 'delay', delayMs: 50, times: 3, matched: 0 })
    await sim.faults.add({ merchant, route: '*', action: 'reset' })
    expect((await sim.faults.list(merchant)).map((listed) => listed.id)).toContain(fault.id)
    await sim.faults.remove(merchant, fault.id)
    expect(await sim.faults.clear(merchant)).toBe(1)
    await expect(sim.faults.add({ merchant, route: 'POST /v1/charges', action: 'error' })).rejects.toMatchObject({ status: 400, code: 'invalid_request', param: 'route' })
    await expect(sim.faults.remove(merchant, fault.id)).rejects.toMatchObject({ status: 404 })
  })
})

describe('the recipe of docs/faults-and-doctor.md', () => {
  /** The two code blocks of "Test your retries", as one module: as written, imports included, as a reader copies them. */
  async function recipe(): Promise<string> {
    const docs = await readFile(path.join(packageRoot(), 'docs', 'faults-and-doctor.md'), 'utf8')
    const section = docs.slice(docs.indexOf('## Test your retries'), docs.indexOf('## `bula doctor`'))
    // JavaScript, as the page labels the blocks (until 27 November `ts`, which did not compile as written).
    const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!)
    expect(blocks).toHaveLength(2)
    return blocks.join('\n')
  }

  /** Runs the module inside the package, where `bula-tools/testing` resolves to the built package. */
  async function run(code: string) {
    const file = path.join(packageRoot(), 'test-artifacts', `recipe-${process.pid}-${Date.now()}.mjs`)
    await mkdir(path.dirname(file), { recursive: true })
    await writeFile(file, code)
    try {
      return await execa('node', [file], { reject: false })
    } finally {
      await rm(file, { force: true })
    }
  }

  it('runs as written: one session per order through lose_response, reset and 503', async () => {
    const result = await run(await recipe())
    expect(result.exitCode, result.stderr).toBe(0)
  })

  it('fails as the page says with a new key per attempt: four sessions for three orders', async () => {
    const code = (await recipe()).replace("'idempotency-key': key", "'idempotency-key': crypto.randomUUID()")
    const result = await run(code)
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('4 !== 3')
  })
})
