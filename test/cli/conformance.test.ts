import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { CaseRecording, ConformanceResult } from '../../src/conformance/index.js'
import { parseJsonOutput, runCli, useServe } from '../helpers/cli.js'

describe('bula conformance against bula serve', () => {
  const serve = useServe()
  const dir = mkdtempSync(path.join(tmpdir(), 'bula-conformance-cli-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const env = () => ({ BULA_BASE_URL: serve().baseUrl })

  it('--json --record: passes every case, skips none, and writes one reviewable file per case', async () => {
    const run = await runCli(['conformance', '--json', '--record', dir], { env: env() })
    const result = parseJsonOutput<ConformanceResult>(run)
    expect(result.cases.filter((item) => item.outcome !== 'pass').map((item) => `${item.id}: ${item.reason}`)).toEqual([])
    expect(result.summary.passed).toBeGreaterThanOrEqual(80)
    expect(run.exitCode).toBe(0)
    const recording = JSON.parse(readFileSync(path.join(dir, 'checkout-sessions', 'amount-max.json'), 'utf8')) as CaseRecording
    expect(recording).toMatchObject({ case: 'checkout-sessions/amount-max', outcome: 'pass' })
    expect(recording.steps[0]).toMatchObject({ request: { method: 'POST', path: '/v1/checkout-sessions', idempotencyKey: '<idempotency-key:1>' }, response: { status: 201, body: { id: '<id:1>', expiresAt: '<timestamp>', hostedUrl: '<url>' } } })
  })

  it('--compare on the same simulator finds no difference', async () => {
    const run = await runCli(['conformance', '--compare', dir], { env: env() })
    expect(run.stdout).toContain(`No difference from ${dir}.`)
    expect(run.exitCode).toBe(0)
  })

  it('--compare reports a changed status, a changed field, a missing field and a new one by case and JSON path, and exits 1', async () => {
    // The recording is edited as if another target had answered it: the simulator now differs in four ways.
    const file = path.join(dir, 'checkout-sessions', 'amount-max.json')
    const recording = JSON.parse(readFileSync(file, 'utf8'))
    recording.steps[1].response.status = 422
    recording.steps[0].response.body.currency = 'USD'
    recording.steps[0].response.body.receiptUrl = '<url>'
    delete recording.steps[0].response.body.hostedUrl
    writeFileSync(file, JSON.stringify(recording, null, 2))

    const json = await runCli(['conformance', '--json', '--compare', dir, '--only', 'checkout-sessions/amount-max'], { env: env() })
    expect(json.exitCode).toBe(1)
    const result = parseJsonOutput<ConformanceResult>(json)
    expect(result.passed).toBe(false)
    expect(result.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ case: 'checkout-sessions/amount-max', path: 'steps[1].response.status', recorded: 422, actual: 400 }),
        expect.objectContaining({ case: 'checkout-sessions/amount-max', path: 'steps[0].response.body.currency', recorded: 'USD', actual: 'FJD' }),
        expect.objectContaining({ case: 'checkout-sessions/amount-max', path: 'steps[0].response.body.receiptUrl', recorded: '<url>', message: expect.stringContaining('missing') }),
        expect.objectContaining({ case: 'checkout-sessions/amount-max', path: 'steps[0].response.body.hostedUrl', actual: '<url>', message: expect.stringContaining('new') }),
      ]),
    )
    expect(result.differences).toHaveLength(4)

    const human = await runCli(['conformance', '--compare', dir, '--only', 'checkout-sessions'], { env: env() })
    expect(human.exitCode).toBe(1)
    expect(human.stdout).toContain('4 differences from')
    expect(human.stdout).toContain('checkout-sessions/amount-max: steps[1].response.status: 422 → 400')
    expect(human.stdout).toContain('checkout-sessions/amount-max: steps[0].response.body.currency: "USD" → "FJD"')
    expect(human.stdout).toContain('checkout-sessions/amount-max: steps[0].response.body.receiptUrl: missing, was "<url>"')
    expect(human.stdout).toContain('checkout-sessions/amount-max: steps[0].response.body.hostedUrl: new, "<url>"')
  })

  it('reports a case with no recording as a difference', async () => {
    rmSync(path.join(dir, 'errors', 'envelope.json'))
    const run = await runCli(['conformance', '--json', '--compare', dir, '--only', 'errors/envelope'], { env: env() })
    expect(run.exitCode).toBe(1)
    expect(parseJsonOutput<ConformanceResult>(run).differences).toEqual([expect.objectContaining({ case: 'errors/envelope', message: expect.stringContaining('no recording') })])
  })

  it('--verbose logs each exchange on stderr', async () => {
    const run = await runCli(['conformance', '--only', 'idempotency/replay', '--verbose'], { env: env() })
    expect(run.exitCode).toBe(0)
    expect(run.stderr).toMatch(/POST \/v1\/checkout-sessions \(secret\) → 201 in \d+ ms/)
    expect(run.stdout).toContain('pass idempotency/replay')
  })

  it('says so when nothing answers at the base URL', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await new Promise((resolve) => server.close(resolve))
    const run = await runCli(['conformance', '--json'], { env: { BULA_BASE_URL: `http://127.0.0.1:${port}` } })
    expect(run.exitCode).toBe(1)
    expect(parseJsonOutput(run)).toEqual({ error: { code: 'connection_failed', message: expect.stringContaining('Is it running?') } })
    // As every other command: where that address came from, so that a stale BULA_BASE_URL is found.
    expect(parseJsonOutput(run)).toMatchObject({ error: { message: expect.stringContaining('That address came from BULA_BASE_URL.') } })
  })

  it('refuses an unknown section before running or printing anything, as a usage error (exit 2)', async () => {
    const run = await runCli(['conformance', '--only', 'payments'], { env: env() })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('No case or section named "payments"')
    expect(run.stdout).toBe('')
    const json = await runCli(['conformance', '--only', 'payments', '--json'], { env: env() })
    expect(json.exitCode).toBe(2)
    expect(JSON.parse(json.stdout).error.code).toBe('invalid_usage')
  })
})
