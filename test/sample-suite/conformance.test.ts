// A merchant's own suite can hold its simulator (or any other target) to the
// service interface with the conformance suite of `bula-tools/testing`.
import { runConformance, startSimulator, type Simulator } from 'bula-tools/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'

let sim: Simulator

beforeAll(async () => {
  sim = await startSimulator()
})
afterAll(() => sim.close())

it('runs sections of the conformance suite against the simulator', async () => {
  const result = await runConformance({ baseUrl: sim.baseUrl, only: ['idempotency', 'webhooks/signature'] })
  expect(result.sim).toBe(true)
  expect(result.cases.map((item) => item.id)).toContain('webhooks/signature')
  expect(result.cases.filter((item) => item.outcome !== 'pass')).toEqual([])
  expect(result.passed).toBe(true)
})
