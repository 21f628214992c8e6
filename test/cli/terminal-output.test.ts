import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { checkoutSessionSchema } from '../../src/schemas/index.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type CliResult, type TestMerchant } from '../helpers/cli.js'

const server = useServe()

/** What a hostile value holds: a window title change (OSC … BEL), a screen clear and a colour (CSI), a one-byte C1 CSI, a right-to-left override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[31mRED\u009b2J\u202eevil'

/** Anything a terminal would act on instead of showing. */
// eslint-disable-next-line no-control-regex -- the control characters are what the test looks for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** No colour from chalk: any ESC left in the output came from the data. */
const plainEnv = (merchant: { env: Partial<TestMerchant['env']> }) => ({ ...merchant.env, NO_COLOR: '1', FORCE_COLOR: '0' })

/** The command's human output shows the hostile value escaped, on stdout and stderr alike. */
function expectEscaped(result: CliResult, what: string): void {
  expect(result.stdout + result.stderr, what).not.toMatch(UNSAFE)
  expect(result.stdout + result.stderr, what).toContain('\\u001b]0;pwned\\u0007')
}

/** Stands for HOSTILE (and a line break) in what the simulator stores: it refuses control characters in names and URLs. */
const MARK = 'HOSTILEMARK'
const LINE_BREAK_MARK = 'LINEBREAKMARK'

/**
 * A server in front of the simulator that answers what it answers, with
 * MARK put back as HOSTILE: what the real service, or a data file of an
 * older version, could send, and what the CLI must still show as text.
 */
async function hostileProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const inJson = (text: string) => JSON.stringify(text).slice(1, -1)
  const proxy = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks)
      void fetch(`${target}${request.url ?? '/'}`, { method: request.method, headers, body }).then(async (answer) => {
        const text = (await answer.text()).replaceAll(MARK, inJson(HOSTILE)).replaceAll(LINE_BREAK_MARK, inJson('\n'))
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
        response.end(text)
      })
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, close: () => new Promise((resolve) => proxy.close(() => resolve())) }
}

/** `merchant`'s environment with the CLI pointed at a hostileProxy, colour off. */
async function throughProxy<T>(merchant: { env: Partial<TestMerchant['env']> }, run: (env: Record<string, string | undefined>) => Promise<T>): Promise<T> {
  const proxy = await hostileProxy(server().baseUrl)
  try {
    return await run({ ...plainEnv(merchant), BULA_BASE_URL: proxy.url })
  } finally {
    await proxy.close()
  }
}

describe('data in the human output cannot drive the terminal', () => {
  it('sessions get and list show escapes in metadata keys and values as text; --json keeps the API\'s JSON', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const session = await merchant.api.createSession({ metadata: { [`key${HOSTILE}`]: `value${HOSTILE}` } })
    const got = await runCli(['sessions', 'get', session.id], { env: plainEnv(merchant) })
    expect(got.exitCode, got.stderr).toBe(0)
    expectEscaped(got, 'sessions get')
    const list = await runCli(['sessions', 'list'], { env: plainEnv(merchant) })
    expect(list.exitCode, list.stderr).toBe(0)
    expect(list.stdout).not.toMatch(UNSAFE)

    const json = await runCli(['sessions', 'get', session.id, '--json'], { env: plainEnv(merchant) })
    expect(checkoutSessionSchema.parse(parseJsonOutput(json))).toEqual(session)
    expect(json.stdout).toBe(JSON.stringify(session, null, 2))
  })

  it('invoices get and list show a hostile customer name and item description escaped', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const invoice = await merchant.api.createInvoice({ customerName: `Cust ${MARK}`, items: [{ description: `Item ${MARK}${LINE_BREAK_MARK}second line`, quantity: 1, unitPrice: 100 }] })
    await throughProxy(merchant, async (env) => {
      const got = await runCli(['invoices', 'get', String(invoice.id)], { env })
      expect(got.exitCode, got.stderr).toBe(0)
      expectEscaped(got, 'invoices get')
      // A line break in a table cell is shown, not obeyed: the item stays one row.
      expect(got.stdout).toContain('\\nsecond line')
      const list = await runCli(['invoices', 'list'], { env })
      expect(list.exitCode, list.stderr).toBe(0)
      expectEscaped(list, 'invoices list')
    })
  })

  it('merchants signup, merchants me and settings show the merchant\'s and display names escaped', async () => {
    await throughProxy({ env: {} }, async (env) => {
      const signup = await runCli(['merchants', 'signup', '--email', 'hostile@example.test', '--name', `Shop ${MARK}`, '--tier', 'business'], { env })
      expect(signup.exitCode, signup.stderr).toBe(0)
      expectEscaped(signup, 'merchants signup')
    })

    const merchant = await signupMerchant(server().baseUrl)
    await succeed(merchant.api.patch('/_sim/settings', { displayName: `Display ${MARK}` }))
    await throughProxy(merchant, async (env) => {
      const me = await runCli(['merchants', 'me'], { env })
      expect(me.exitCode, me.stderr).toBe(0)
      expectEscaped(me, 'merchants me')
      const settings = await runCli(['settings', 'show'], { env })
      expect(settings.exitCode, settings.stderr).toBe(0)
      expectEscaped(settings, 'settings show')
    })
  })

  it('webhooks list shows a hostile endpoint URL escaped', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await succeed(merchant.api.post('/v1/webhook-endpoints', { url: `https://hooks.example.test/${MARK}` }))
    await throughProxy(merchant, async (env) => {
      const list = await runCli(['webhooks', 'list'], { env })
      expect(list.exitCode, list.stderr).toBe(0)
      expectEscaped(list, 'webhooks list')
    })
  })

  it('an error body from another server shows its code, message and param escaped; --json keeps them as sent', async () => {
    const error = { code: `x${HOSTILE}`, message: `\u001b[2J${HOSTILE}`, param: `p${HOSTILE}` }
    const fake = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error }))
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = fake.address() as AddressInfo
      const env = { BULA_BASE_URL: `http://127.0.0.1:${port}`, BULA_API_KEY: 'sk_test_hostile' }
      const human = await runCli(['sessions', 'get', 'cs_1'], { env: plainEnv({ env }) })
      expect(human.exitCode).toBe(1)
      expectEscaped(human, 'error')
      const json = await runCli(['sessions', 'get', 'cs_1', '--json'], { env })
      expect((parseJsonOutput(json) as { error: typeof error }).error).toMatchObject(error)
    } finally {
      await new Promise((resolve) => fake.close(resolve))
    }
  })

  it('--verbose shows a hostile X-Request-Id from another server escaped', async () => {
    // Header bytes 0x80-0xFF reach the client as Latin-1 characters: 0x9B is the one-byte C1 CSI.
    const fake = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req_\u009b2J' })
      response.end(JSON.stringify({ error: { code: 'not_found', message: 'No such session.' } }))
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = fake.address() as AddressInfo
      const env = { BULA_BASE_URL: `http://127.0.0.1:${port}`, BULA_API_KEY: 'sk_test_hostile' }
      const verbose = await runCli(['sessions', 'get', 'cs_1', '--verbose'], { env: plainEnv({ env }) })
      expect(verbose.exitCode).toBe(1)
      expect(verbose.stderr).not.toMatch(UNSAFE)
      expect(verbose.stderr).toContain('req_\\u009b2J')
    } finally {
      await new Promise((resolve) => fake.close(resolve))
    }
  })
})
