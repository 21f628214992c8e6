import type { Subprocess } from 'execa'
import { createInterface } from 'node:readline'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BulaClient } from '../../src/client/bula-client.js'
import type { RequestLogEntry } from '../../src/schemas/index.js'
import { runCli, signupMerchant, useServe, type TestMerchant } from '../helpers/cli.js'
import { tempFolder } from '../helpers/temp.js'

const server = useServe()

type RequestLine = RequestLogEntry & { event: 'request' }

const api = (merchant: TestMerchant) => new BulaClient({ baseUrl: merchant.env.BULA_BASE_URL, apiKey: merchant.secret })

/** A create with a known key, a 404 and a read, in that order. */
async function makeCalls(merchant: TestMerchant): Promise<void> {
  const client = api(merchant)
  await client.createCheckoutSession({ amount: 1500, currency: 'FJD' }, 'order-1')
  await client.getCheckoutSession('cs_missing').catch(() => undefined)
  await client.getMe()
}

const jsonLines = (stdout: string): RequestLine[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RequestLine)

describe('bula logs tail --no-follow', () => {
  it('with a key the simulator no longer knows, names the profile it came from and what to do', async () => {
    const configDir = await tempFolder('bula-stale-key-')
    const stale = { baseUrl: server().baseUrl, apiKey: `sk_test_${'s'.repeat(32)}` }
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ current: 'default', profiles: { default: stale } }), { mode: 0o600 })
    const result = await runCli(['logs', 'tail', '--no-follow'], { env: { BULA_CONFIG_DIR: configDir } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(
      'invalid_api_key: The API key is unknown, revoked or past its rotation overlap. That key came from profile "default". ' +
        'If it was revoked or rotated (`bula keys revoke`, `bula keys rotate` and 72 hours), save a working key with `bula login --api-key`; ' +
        'if a simulator was started afresh (`bula serve --memory`, a new data file), it saved its new keys there: run the command again.',
    )
  })

  // docs/cli.md's `state export - | state import - --base-url …` sent the current profile's key to another simulator.
  it('with a profile\'s key sent to another simulator by --base-url, says whose key it is and where it belongs', async () => {
    const configDir = await tempFolder('bula-other-simulator-key-')
    const elsewhere = { baseUrl: 'http://127.0.0.1:9', apiKey: `sk_test_${'o'.repeat(32)}` }
    await writeFile(path.join(configDir, 'config.json'), JSON.stringify({ current: 'default', profiles: { default: elsewhere } }), { mode: 0o600 })
    const result = await runCli(['logs', 'tail', '--no-follow', '--base-url', server().baseUrl], { env: { BULA_CONFIG_DIR: configDir } })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.trim()).toBe(
      'invalid_api_key: The API key is unknown, revoked or past its rotation overlap. That key is profile "default"\'s, saved for the simulator ' +
        `at http://127.0.0.1:9, not the one at ${server().baseUrl} (from --base-url): name that simulator's profile with --profile, or give its key with --api-key.`,
    )
  })

  it('prints the recent calls, oldest first, one line each', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await makeCalls(merchant)
    const result = await runCli(['logs', 'tail', '--no-follow'], { env: merchant.env })
    expect(result.exitCode, result.stderr).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d FJT \((?:\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d:\d\d UTC\) {2}test {2}POST {4}\/v1\/checkout-sessions\s+201\s+[\d.]+ ms {2}order-1 {2}req_\w+$/)
    expect(lines[1]).toMatch(/ GET {5}\/v1\/checkout-sessions\/cs_missing\s+404\s+[\d.]+ ms {2}- {2}req_\w+$/)
    expect(lines[2]).toMatch(/ GET {5}\/v1\/merchants\/me\s+200 /)
  })

  it('filters by status and path, limits, and prints JSON lines with --json', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await makeCalls(merchant)
    const tail = async (...args: string[]) => {
      const result = await runCli(['logs', 'tail', '--no-follow', '--json', ...args], { env: merchant.env })
      expect(result.exitCode, result.stderr).toBe(0)
      return jsonLines(result.stdout)
    }
    const all = await tail()
    expect(all.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'POST /v1/checkout-sessions 201',
      'GET /v1/checkout-sessions/cs_missing 404',
      'GET /v1/merchants/me 200',
    ])
    expect(all[0]).toEqual({
      event: 'request',
      at: expect.any(Number),
      mode: 'test',
      method: 'POST',
      path: '/v1/checkout-sessions',
      status: 201,
      latencyMs: expect.any(Number),
      idempotencyKey: 'order-1',
      requestId: expect.stringMatching(/^req_/),
      fault: null,
    })
    expect((await tail('--status', '4xx')).map((entry) => entry.status)).toEqual([404])
    expect((await tail('--status', '201')).map((entry) => entry.status)).toEqual([201])
    expect((await tail('--path', '/v1/checkout-sessions')).map((entry) => entry.status)).toEqual([201, 404])
    expect((await tail('--limit', '1')).map((entry) => entry.path)).toEqual(['/v1/merchants/me'])
    // tail's own reads of the log, made above, are never shown.
    expect((await tail()).map((entry) => entry.path)).toEqual(all.map((entry) => entry.path))
  })

  it('refuses bad filters as usage errors, and an unreachable simulator at once', async () => {
    for (const args of [['--status', '4'], ['--status', '4xxx'], ['--path', 'v1/invoices']]) {
      const result = await runCli(['logs', 'tail', ...args, '--json'], { env: { BULA_BASE_URL: 'http://127.0.0.1:9', BULA_API_KEY: 'sk_test_none' } })
      expect(result.exitCode, args.join(' ')).toBe(2)
    }
    // Nothing listens on port 9: tail fails rather than retrying forever.
    const down = await runCli(['logs', 'tail'], { env: { BULA_BASE_URL: 'http://127.0.0.1:9', BULA_API_KEY: 'sk_test_none' } })
    expect(down.exitCode).toBe(1)
    expect(down.stderr).toContain('connection_failed')
  })
})

describe('bula logs tail (following)', () => {
  it('prints the recent calls, then each new one as it finishes, until Ctrl-C', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await api(merchant).getMe()
    const child = runCli(['logs', 'tail', '--json', '--status', '4xx'], { env: merchant.env }) as unknown as Subprocess
    const lines: RequestLine[] = []
    let wake = (): void => {}
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(JSON.parse(line) as RequestLine)
      wake()
    })
    const waitForLines = (count: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${lines.length} of ${count} lines within 10 s: ${JSON.stringify(lines)}`)), 10_000)
        wake = () => {
          if (lines.length < count) return
          clearTimeout(timer)
          resolve()
        }
        wake()
      })
    try {
      const client = api(merchant)
      await client.getCheckoutSession('cs_first').catch(() => undefined)
      await waitForLines(1)
      await client.getMe()
      await client.getInvoice(424242).catch(() => undefined)
      await waitForLines(2)
      expect(lines.map((line) => `${line.path} ${line.status}`)).toEqual(['/v1/checkout-sessions/cs_first 404', '/v1/invoices/424242 404'])
    } finally {
      child.kill('SIGINT')
    }
    const result = await child
    expect(result.exitCode).toBe(0)
  })

  it('stops when its reader goes away (`| head -1`), rather than following on with no one reading', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await api(merchant).getMe()
    const child = runCli(['logs', 'tail'], { env: merchant.env }) as unknown as Subprocess
    // The reader closes its end before the first call is printed, as `head` does once it has its line.
    child.stdout!.destroy()
    const timer = setTimeout(() => child.kill('SIGINT'), 20_000)
    const result = await child
    clearTimeout(timer)
    // Still following after 20 s, it is stopped with Ctrl-C and exits otherwise.
    expect(result.exitCode).toBe(141)
  })
})
