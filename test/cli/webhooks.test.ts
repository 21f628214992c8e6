import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  clockSchema,
  deletedWebhookEndpointSchema,
  webhookEndpointListSchema,
  webhookEndpointResponseSchema,
  type WebhookEndpointWithSecret,
} from '../../src/schemas/index.js'
import { formatTime } from '../../src/time.js'
import { verifyWebhook } from '../../src/webhooks/signature.js'
import { parseJsonOutput, runCli, signupMerchant, succeed, useServe, type TestMerchant } from '../helpers/cli.js'
import { useReceivers, type ReceivedRequest } from '../helpers/receiver.js'

const HOUR = 60 * 60 * 1000

const server = useServe()
const receiver = useReceivers()

const webhooks = (merchant: TestMerchant, args: string[]) => runCli(['webhooks', ...args], { env: merchant.env })

async function create(merchant: TestMerchant, url: string): Promise<WebhookEndpointWithSecret> {
  const result = await webhooks(merchant, ['create', '--url', url, '--json'])
  expect(result.exitCode, result.stdout + result.stderr).toBe(0)
  return webhookEndpointResponseSchema.parse(parseJsonOutput(result)).endpoint
}

// Set-up over HTTP where a test is about another command (bula webhooks create and list have tests of their own).
async function register(merchant: TestMerchant, url: string): Promise<WebhookEndpointWithSecret> {
  return webhookEndpointResponseSchema.parse(await succeed(merchant.api.post('/v1/webhook-endpoints', { url }))).endpoint
}

const listOverHttp = async (merchant: TestMerchant) => webhookEndpointListSchema.parse((await merchant.api.get('/v1/webhook-endpoints')).body).data

async function list(merchant: TestMerchant) {
  return webhookEndpointListSchema.parse(parseJsonOutput(await webhooks(merchant, ['list', '--json']))).data
}

/** The `v1=` signatures of a delivery. */
const signatures = (request: ReceivedRequest): string[] => String(request.headers['service-signature']).split(',')

const hmac = (secret: string, request: ReceivedRequest): string =>
  `v1=${createHmac('sha256', secret).update(`${request.headers['service-timestamp']}.${request.body}`).digest('hex')}`

describe('webhooks create', () => {
  it('registers an endpoint, prints its secret once, and the endpoint verifies with it', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const hook = await receiver()
    const result = await webhooks(merchant, ['create', '--url', hook.url])
    expect(result.exitCode, result.stderr).toBe(0)
    const secret = /^signing secret:\s+(whsec_\S+)$/m.exec(result.stdout)?.[1]
    expect(secret).toBeDefined()
    expect(result.stdout).toMatch(/^id:\s+we_\S+$/m)
    expect(result.stdout).toContain(`url:            ${hook.url}`)
    expect(result.stdout).toContain('The signing secret is shown only once')

    const [verification] = await hook.waitFor(1)
    expect(signatures(verification!)).toEqual([hmac(secret!, verification!)])
    expect(verifyWebhook(verification!.body, verification!.headers, secret!)).toMatchObject({ type: 'webhook.verified' })

    // The 2xx answer to webhook.verified makes it active; the listing never shows a secret.
    await expect.poll(async () => (await listOverHttp(merchant)).map((endpoint) => endpoint.status)).toEqual(['active'])
    const listed = await webhooks(merchant, ['list', '--json'])
    expect(webhookEndpointListSchema.parse(parseJsonOutput(listed)).data.map((endpoint) => endpoint.status)).toEqual(['active'])
    expect(listed.stdout).not.toContain('whsec_')
  })

  it('passes the simulator\'s refusal of a URL through', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const result = await webhooks(merchant, ['create', '--url', 'ftp://kaistore.fj/hooks'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^invalid_request: .*\(param: url\)$/m)
    expect((await webhooks(merchant, ['create'])).exitCode).toBe(2)
  })
})

describe('webhooks list', () => {
  it('shows the endpoints of the key\'s mode in a table', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    expect((await webhooks(merchant, ['list'])).stdout).toBe('No webhook endpoints.')
    const [first, second] = [await receiver(), await receiver()]
    const created = [await register(merchant, first.url), await register(merchant, second.url)]
    const listed = await list(merchant)
    expect(listed.map((endpoint) => endpoint.id).sort()).toEqual(created.map((endpoint) => endpoint.id).sort())
    const human = await webhooks(merchant, ['list'])
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+URL\s+MODE\s+STATUS\s+CREATED\s+PREVIOUS SECRET UNTIL$/)
    for (const endpoint of created) expect(human.stdout).toMatch(new RegExp(`^${endpoint.id}\\s+${endpoint.url}\\s+test\\s`, 'm'))
  })

  it('says where to look when an endpoint is still pending, and not when all are active', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const healthy = await receiver()
    await register(merchant, healthy.url)
    await expect.poll(async () => (await listOverHttp(merchant)).map((endpoint) => endpoint.status)).toEqual(['active'])
    expect((await webhooks(merchant, ['list'])).stdout).not.toContain('pending endpoint')

    const refusing = await receiver()
    refusing.respondWith(() => 500)
    await register(merchant, refusing.url)
    await refusing.waitFor(1)
    const human = await webhooks(merchant, ['list'])
    expect(human.stdout).toMatch(/\spending\s/)
    expect(human.stdout).toContain('A pending endpoint has not yet answered webhook.verified with a 2xx')
    expect(human.stdout).toContain('bula events list --type webhook.verified')
    // --json stays the listing alone (list() parses the whole of stdout).
    expect((await list(merchant)).map((endpoint) => endpoint.status).sort()).toEqual(['active', 'pending'])
  })
})

describe('webhooks rotate', () => {
  it('prints the new secret once and when the old one stops verifying; deliveries carry both meanwhile', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const hook = await receiver()
    // Through the CLI: the signatures below also check the secret that create --json printed.
    const endpoint = await create(merchant, hook.url)
    await hook.waitFor(1)

    const result = await webhooks(merchant, ['rotate', endpoint.id])
    expect(result.exitCode, result.stderr).toBe(0)
    const secret = /^signing secret:\s+(whsec_\S+)$/m.exec(result.stdout)?.[1]
    expect(secret).toBeDefined()
    expect(secret).not.toBe(endpoint.secret)
    const until = /^previous secret:\s+keeps verifying until (.+) \(merchant's clock\)$/m.exec(result.stdout)?.[1]
    const now = clockSchema.parse(parseJsonOutput(await runCli(['clock', 'show', '--json'], { env: merchant.env }))).now
    const expiresAt = (await listOverHttp(merchant)).find((listedEndpoint) => listedEndpoint.id === endpoint.id)!.previousSecretExpiresAt!
    // Shown as every time is (issue 14): Fiji time with UTC beside it.
    expect(until).toBe(formatTime(expiresAt))
    expect(expiresAt - now).toBeGreaterThan(72 * HOUR - 60_000)
    expect(expiresAt - now).toBeLessThanOrEqual(72 * HOUR)
    expect(result.stdout).toContain('The new signing secret is shown only once')

    // Rotation sends webhook.verified again, signed with the new secret and the old one.
    const [, verification] = await hook.waitFor(2)
    expect(signatures(verification!)).toEqual([hmac(secret!, verification!), hmac(endpoint.secret, verification!)])
    expect(verifyWebhook(verification!.body, verification!.headers, endpoint.secret)).toMatchObject({ type: 'webhook.verified' })

    const json = await webhooks(merchant, ['rotate', endpoint.id, '--json'])
    const rotated = webhookEndpointResponseSchema.parse(parseJsonOutput(json)).endpoint
    expect(rotated.secret).not.toBe(secret)
    expect(rotated.previousSecretExpiresAt).not.toBeNull()
  })
})

describe('webhooks delete', () => {
  it('deletes an endpoint, which then is gone', async () => {
    const merchant = await signupMerchant(server().baseUrl)
    const [kept, removed] = [await register(merchant, (await receiver()).url), await register(merchant, (await receiver()).url)]

    const human = await webhooks(merchant, ['delete', removed.id])
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toBe(`Deleted webhook endpoint ${removed.id}.`)
    expect((await list(merchant)).map((endpoint) => endpoint.id)).toEqual([kept.id])

    const json = await webhooks(merchant, ['delete', kept.id, '--json'])
    expect(deletedWebhookEndpointSchema.parse(parseJsonOutput(json))).toEqual({ id: kept.id, deleted: true })
    expect(await list(merchant)).toEqual([])

    const again = await webhooks(merchant, ['delete', kept.id])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toMatch(/^not_found: /m)
  })

  it('cannot touch another merchant\'s endpoint', async () => {
    const owner = await signupMerchant(server().baseUrl)
    const other = await signupMerchant(server().baseUrl)
    const endpoint = await register(owner, (await receiver()).url)
    for (const command of ['delete', 'rotate']) {
      const result = await webhooks(other, [command, endpoint.id, '--json'])
      expect(result.exitCode).toBe(1)
      expect(parseJsonOutput(result)).toMatchObject({ error: { code: 'not_found' } })
    }
    expect((await list(owner)).map((item) => item.id)).toEqual([endpoint.id])
  })
})
