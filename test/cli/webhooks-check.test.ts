import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { checkoutSessionSchema, eventSchema } from '../../src/schemas/index.js'
import type { WebhookCheckResult } from '../../src/webhooks/check.js'
import { verifyWebhook, WebhookVerificationError, type VerifyOptions } from '../../src/webhooks/signature.js'
import { parseJsonOutput, removeCliConfigDir, runCli } from '../helpers/cli.js'
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js'

const SECRET = 'whsec_cli_check_secret'

afterAll(removeCliConfigDir)

let receiver: Receiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

type Verified = { status: 400 } | { status: 200; event: { event_id: string; data: { object: unknown } } }

function verify(request: ReceivedRequest, options: VerifyOptions = {}): Verified {
  try {
    return { status: 200, event: verifyWebhook(request.body, request.headers, SECRET, options) }
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { status: 400 }
    throw error
  }
}

/** Receivers on loopback, one right and the others each wrong in one way. */
const receivers = {
  // Deduplicating changes what it does, not what it answers, so none is needed here.
  correct: () => (request: ReceivedRequest) => verify(request).status,
  acceptsEverything: () => () => 200,
  rejectsUnknownFields: () => (request: ReceivedRequest) => {
    const verified = verify(request)
    if (verified.status !== 200) return verified.status
    const strict =
      eventSchema.strict().safeParse(verified.event).success &&
      checkoutSessionSchema.strict().safeParse(verified.event.data.object).success
    return strict ? 200 : 422
  },
  rejectsReplays: () => {
    const seen = new Set<string>()
    return (request: ReceivedRequest) => {
      const verified = verify(request)
      if (verified.status !== 200) return verified.status
      if (seen.has(verified.event.event_id)) return 409
      seen.add(verified.event.event_id)
      return 200
    }
  },
  ignoresTimestamp: () => (request: ReceivedRequest) => verify(request, { toleranceSeconds: Number.POSITIVE_INFINITY }).status,
  checksFirstSignatureOnly: () => (request: ReceivedRequest) => {
    const [first] = String(request.headers['service-signature']).split(',')
    return verify({ ...request, headers: { ...request.headers, 'service-signature': first } }).status
  },
}

async function startWith(kind: keyof typeof receivers): Promise<Receiver> {
  receiver = await startReceiver()
  receiver.respondWith(receivers[kind]())
  return receiver
}

const check = (url: string, ...extra: string[]) => runCli(['webhooks', 'check', url, '--secret', SECRET, ...extra])

const failedCases = (result: WebhookCheckResult) => result.cases.filter((c) => !c.passed).map((c) => c.name)

describe('webhooks check', () => {
  it('passes a correct receiver: exit 0, six deliveries, typed JSON', async () => {
    const { url, requests } = await startWith('correct')
    const result = await check(url, '--json')
    expect(result.exitCode, result.stderr).toBe(0)
    const report = parseJsonOutput<WebhookCheckResult>(result)
    expect(report).toMatchObject({ url, passed: true })
    expect(report.cases.map((c) => [c.name, c.expected, c.status, c.passed])).toEqual([
      ['signed', '2xx', 200, true],
      ['bad_signature', '4xx', 400, true],
      ['stale_timestamp', '4xx', 400, true],
      ['replay', '2xx', 200, true],
      ['unknown_fields', '2xx', 200, true],
      ['rotation', '2xx', 200, true],
    ])
    expect(requests).toHaveLength(6)
    expect(String(requests[5]?.headers['service-signature'])).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    expect(requests.every((request) => request.method === 'POST' && request.path === '/webhooks')).toBe(true)
    expect(requests[3]?.body).toBe(requests[0]?.body)
    expect(requests[3]?.headers['x-service-event-id']).toBe(requests[0]?.headers['x-service-event-id'])
  })

  it('prints a table and a summary without --json', async () => {
    const { url } = await startWith('correct')
    const result = await check(url)
    expect(result.exitCode, result.stderr).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines[0]).toMatch(/^CASE\s+SENT\s+EXPECTED\s+GOT\s+LATENCY\s+RESULT$/)
    expect(lines[1]).toMatch(/^signed\s+correctly signed event\s+2xx\s+200\s+\d+ms\s+pass$/)
    expect(result.stdout).toContain('All 6 cases passed.')
  })

  it.each([
    ['acceptsEverything', ['bad_signature', 'stale_timestamp'], /bad_signature: your receiver accepted a bad signature: verify Service-Signature with HMAC-SHA256/],
    ['rejectsUnknownFields', ['unknown_fields'], /unknown_fields: your receiver refused a payload with unknown fields/],
    ['rejectsReplays', ['replay'], /replay: your receiver refused a repeated event: retries re-send the same event_id/],
    ['ignoresTimestamp', ['stale_timestamp'], /stale_timestamp: your receiver accepted a delivery signed 10m ago/],
    ['checksFirstSignatureOnly', ['rotation'], /rotation: your receiver refused a delivery whose second v1= signature is yours: check every v1= value/],
  ] as const)('fails a receiver that %s: exit 1, the failing cases and a hint', async (kind, failing, hint) => {
    const { url } = await startWith(kind)

    const json = await check(url, '--json')
    expect(json.exitCode).toBe(1)
    const report = parseJsonOutput<WebhookCheckResult>(json)
    expect(report.passed).toBe(false)
    expect(failedCases(report)).toEqual(failing)
    for (const c of report.cases) expect(c.hint === null).toBe(c.passed)

    const human = await check(url)
    expect(human.exitCode).toBe(1)
    expect(human.stdout).toContain(`${failing.length} of 6 cases failed:`)
    expect(human.stdout).toMatch(hint)
  })

  it('reports a receiver that is not running as connection errors, exit 1', async () => {
    const { url } = await startWith('correct')
    await receiver?.close()
    receiver = undefined
    const result = await check(url, '--json')
    expect(result.exitCode).toBe(1)
    const report = parseJsonOutput<WebhookCheckResult>(result)
    expect(report.cases.every((c) => c.status === null && c.error === 'ECONNREFUSED' && !c.passed)).toBe(true)
    expect(report.cases[0]?.hint).toMatch(/could not reach the receiver/)
  })

  it('takes the secret from BULA_WEBHOOK_SECRET', async () => {
    const { url } = await startWith('correct')
    const result = await runCli(['webhooks', 'check', url, '--json'], { env: { BULA_WEBHOOK_SECRET: SECRET } })
    expect(result.exitCode, result.stdout).toBe(0)
  })

  it.each([
    ['no secret', ['http://127.0.0.1:9/webhooks'], /^Missing --secret \(or BULA_WEBHOOK_SECRET\).*`bula listen --print-secret`.*`bula webhooks create`/],
    ['an API key as the secret', ['http://127.0.0.1:9/webhooks', '--secret', 'sk_test_abc'], /starts with whsec_/],
    ['a URL that is not http', ['ftp://127.0.0.1/webhooks', '--secret', SECRET], /not an http or https address/],
    ['a bad timeout', ['http://127.0.0.1:9/webhooks', '--secret', SECRET, '--timeout', '5 seconds'], /Invalid duration/],
  ])('refuses %s as a usage error (exit 2)', async (_what, args, message) => {
    const result = await runCli(['webhooks', 'check', ...args, '--json'])
    expect(result.exitCode).toBe(2)
    expect(parseJsonOutput<{ error: { code: string; message: string } }>(result).error).toMatchObject({
      code: 'invalid_usage',
      message: expect.stringMatching(message),
    })
  })
})
