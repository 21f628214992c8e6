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
const plainEnv = (merchant: Pick<TestMerchant, 'env'>) => ({ ...merchant.env, NO_COLOR: '1', FORCE_COLOR: '0' })

/** The command's human output shows the hostile value escaped, on stdout and stderr alike. */
function expectEscaped(result: CliResult, what: string): void {
  expect(result.stdout + result.stderr, what).not.toMatch(UNSAFE)
  expect(result.stdout + result.stderr, what).toContain('\\u001b]0;pwned\\u0007')
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
    const invoice = await merchant.api.createInvoice({ customerName: `Cust ${HOSTILE}`, items: [{ description: `Item ${HOSTILE}\nsecond line`, quantity: 1, unitPrice: 100 }] })
    const got = await runCli(['invoices', 'get', String(invoice.id)], { env: plainEnv(merchant) })
    expect(got.exitCode, got.stderr).toBe(0)
    expectEscaped(got, 'invoices get')
    // A line break in a table cell is shown, not obeyed: the item stays one row.
    expect(got.stdout).toContain('\\nsecond line')
    const list = await runCli(['invoices', 'list'], { env: plainEnv(merchant) })
    expect(list.exitCode, list.stderr).toBe(0)
    expectEscaped(list, 'invoices list')
  })

  it('merchants signup, merchants me and settings show the merchant\'s and display names escaped', async () => {
    const signup = await runCli(['merchants', 'signup', '--email', 'hostile@example.test', '--name', `Shop ${HOSTILE}`, '--tier', 'business'], {
      env: { BULA_BASE_URL: server().baseUrl, NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    expect(signup.exitCode, signup.stderr).toBe(0)
    expectEscaped(signup, 'merchants signup')

    const merchant = await signupMerchant(server().baseUrl)
    await succeed(merchant.api.patch('/_sim/settings', { displayName: `Display ${HOSTILE}` }))
    const me = await runCli(['merchants', 'me'], { env: plainEnv(merchant) })
    expect(me.exitCode, me.stderr).toBe(0)
    expectEscaped(me, 'merchants me')
    const settings = await runCli(['settings', 'show'], { env: plainEnv(merchant) })
    expect(settings.exitCode, settings.stderr).toBe(0)
    expectEscaped(settings, 'settings show')
  })

  it('webhooks list shows a hostile endpoint URL escaped', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    await succeed(merchant.api.post('/v1/webhook-endpoints', { url: `https://hooks.example.test/${HOSTILE}` }))
    const list = await runCli(['webhooks', 'list'], { env: plainEnv(merchant) })
    expect(list.exitCode, list.stderr).toBe(0)
    expectEscaped(list, 'webhooks list')
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
