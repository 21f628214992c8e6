import { describe, expect, it } from 'vitest'
import { BulaClient, newIdempotencyKey } from '../../src/client/bula-client.js'
import { apiFaultResponseSchema, type ApiFault, type ApiFaultList, type RequestLogEntry } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe } from '../helpers/cli.js'

const server = useServe()

describe('bula faults', () => {
  it('adds, lists, removes and clears, in words and as JSON', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const added = await runCli(['faults', 'add', 'POST /v1/checkout-sessions', '--action', 'lose_response', '--times', '1'], { env: merchant.env })
    expect(added.exitCode, added.stderr).toBe(0)
    expect(added.stdout).toMatch(/flt_\w+\s+POST \/v1\/checkout-sessions\s+lose_response\s+0 of 1\s+0\s+1\s/)
    expect(added.stdout).toContain('bula faults remove flt_')

    const error = parseJsonOutput<ApiFault>(
      await runCli(['faults', 'add', 'GET /v1/checkout-sessions/{id}', '--action', 'error', '--status', '502', '--times', '3', '--probability', '0.5', '--seed', '9', '--json'], { env: merchant.env }),
    )
    expect(error).toMatchObject({ route: 'GET /v1/checkout-sessions/{id}', action: 'error', status: 502, times: 3, probability: 0.5, seed: 9 })
    const delay = parseJsonOutput<ApiFault>(await runCli(['faults', 'add', '*', '--action', 'delay', '--delay', '1s500ms', '--json'], { env: merchant.env }))
    expect(delay).toMatchObject({ route: '*', delayMs: 1500 })

    const listed = await runCli(['faults', 'list'], { env: merchant.env })
    expect(listed.stdout).toContain('error 502')
    expect(listed.stdout).toContain('delay 1s500ms')
    expect(listed.stdout).toContain('0.5 (seed 9)')
    expect(parseJsonOutput<ApiFaultList>(await runCli(['faults', 'list', '--json'], { env: merchant.env })).data.map((fault) => fault.id)).toHaveLength(3)

    const removed = await runCli(['faults', 'remove', error.id], { env: merchant.env })
    expect(removed.stdout).toBe(`Removed API fault ${error.id}.`)
    expect(parseJsonOutput(await runCli(['faults', 'remove', error.id, '--json'], { env: merchant.env }))).toMatchObject({ error: { code: 'not_found' } })
    expect(parseJsonOutput(await runCli(['faults', 'clear', '--json'], { env: merchant.env }))).toEqual({ deleted: 2 })
    expect((await runCli(['faults', 'clear'], { env: merchant.env })).stdout).toBe('No API faults were in force.')
    expect((await runCli(['faults', 'list'], { env: merchant.env })).stdout).toBe('No API faults in force.')
  })

  it('refuses a route the API does not have (exit 1, naming route) and bad flags (exit 2)', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const unknown = await runCli(['faults', 'add', 'GET /v1/invoices/42', '--action', 'reset', '--json'], { env: merchant.env })
    expect(unknown.exitCode).toBe(1)
    expect(parseJsonOutput(unknown)).toMatchObject({ error: { code: 'invalid_request', param: 'route', message: expect.stringContaining('"GET /v1/invoices/{id}"') } })
    for (const flags of [['--action', 'explode'], ['--action', 'delay', '--delay', '61s'], ['--action', 'error', '--status', '501'], ['--action', 'error', '--probability', '2']]) {
      const result = await runCli(['faults', 'add', '*', ...flags], { env: merchant.env })
      expect(result.exitCode, flags.join(' ')).toBe(2)
    }
  })

  it('is marked in bula logs tail, and a retrying client gets through it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    // Set-up over HTTP (bula faults add has tests of its own above).
    const { fault } = apiFaultResponseSchema.parse(await succeed(merchant.api.post('/_sim/faults', { route: 'POST /v1/checkout-sessions', action: 'lose_response' }), 201))
    const client = new BulaClient({ baseUrl: merchant.env.BULA_BASE_URL, apiKey: merchant.secret })
    const session = await client.createCheckoutSession({ amount: 1500, currency: 'FJD' }, newIdempotencyKey())
    expect((await client.listCheckoutSessions()).data.map((listed) => listed.id)).toEqual([session.id])

    const lines = (await runCli(['logs', 'tail', '--no-follow', '--path', '/v1/checkout-sessions'], { env: merchant.env })).stdout.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(new RegExp(`POST {4}/v1/checkout-sessions\\s+201 .* req_\\w+ {2}FAULT lose_response ${fault.id}$`))
    expect(lines[1]).toMatch(/POST {4}\/v1\/checkout-sessions\s+201 .* req_\w+$/)
    const json = (await runCli(['logs', 'tail', '--no-follow', '--path', '/v1/checkout-sessions', '--json'], { env: merchant.env })).stdout.split('\n').map((line) => JSON.parse(line) as RequestLogEntry)
    expect(json.map((entry) => entry.fault)).toEqual([{ id: fault.id, action: 'lose_response' }, null, null])
  })
})
