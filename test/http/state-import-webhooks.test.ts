import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { startServer } from '../../server/start.js'
import { exportState } from '../../server/state.js'
import type { StateFile } from '../helpers/busy-merchant.js'
import { DAY, HOUR, client, signupMerchant, useTestServer } from '../helpers/http.js'
import { idempotent, SAMPLE_INVOICE } from '../helpers/invoices.js'
import { useReceivers } from '../helpers/receiver.js'
import { tempFolder } from '../helpers/temp.js'

// A state file is untrusted input (docs/security.md, "State files"): its webhook endpoints, deliveries and
// e-mails hold only what the API writes, with no time after the clock the import sets and no retry beyond the
// schedule. Each case forges one value of a merchant's own export, made through the API.

const server = useTestServer()
const receiver = useReceivers()
const MINUTE = 60_000

let api: ReturnType<typeof client>
let exported: StateFile
let now: number
let endpointId: string
beforeAll(async () => {
  api = client(server().baseUrl, (await signupMerchant(server().baseUrl)).keys.secret)
  const answering = await receiver()
  endpointId = (await api.post('/v1/webhook-endpoints', { url: answering.url })).body.endpoint.id
  // vi.waitFor, not expect.poll (endpointsActive): a hook is not a test.
  await vi.waitFor(async () => expect((await api.get('/v1/webhook-endpoints')).body.data[0].status).toBe('active'), { timeout: 15_000 })
  // Two rotations: the first old secret keeps the rest of its 72 hours, the second its own.
  await api.post(`/v1/webhook-endpoints/${endpointId}/rotate`)
  await api.post('/_sim/clock/advance', { ms: HOUR })
  await api.post(`/v1/webhook-endpoints/${endpointId}/rotate`)
  await answering.waitFor(3)
  // An endpoint deleted since: its delivery outlives it.
  const gone = (await api.post('/v1/webhook-endpoints', { url: (await receiver('/gone')).url })).body.endpoint.id
  await api.delete(`/v1/webhook-endpoints/${gone}`)
  // An Invoice e-mailed with its PDF.
  const invoice = (await api.post('/v1/invoices', SAMPLE_INVOICE, idempotent())).body
  await api.post(`/v1/invoices/${invoice.id}/send`, undefined, idempotent())
  await api.post(`/_sim/invoices/${invoice.id}/email`)
  const session = (await api.post('/v1/checkout-sessions', { amount: 1500, currency: 'FJD' }, idempotent())).body
  // Retries pending: the receiver refuses a payment's events, which have been tried twice.
  answering.respondWith(() => 500)
  await api.post(`/_sim/checkout-sessions/${session.id}/pay`, { outcome: 'succeeded' })
  const state = async () => (await api.get('/_sim/state')).body as StateFile
  await vi.waitFor(async () => expect(deliveries(await state()).some((d) => d.attempts.length === 1 && d.status === 'pending')).toBe(true), { timeout: 15_000 })
  await api.post('/_sim/clock/advance', { ms: MINUTE })
  await vi.waitFor(async () => expect(pendingAt(await state())).toBeGreaterThanOrEqual(0), { timeout: 15_000 })
  exported = await state()
  now = (await api.get('/_sim/clock')).body.now
})

const deliveries = (file: StateFile) => file.collections.deliveries!
const pendingAt = (file: StateFile) => deliveries(file).findIndex((d) => d.status === 'pending' && d.attempts.length === 2)
const succeededAt = (file: StateFile) => deliveries(file).findIndex((d) => d.status === 'succeeded')
const goneAt = (file: StateFile) => deliveries(file).findIndex((d) => !file.collections.webhookEndpoints!.some((e) => e.id === d.endpointId))
const endpoint = (file: StateFile) => file.collections.webhookEndpoints!.find((e) => e.id === endpointId)!
const invoiceEmailAt = (file: StateFile) => file.collections.emails!.findIndex((e) => e.attachments.length > 0)

describe('state import: webhooks and e-mails as the API leaves them', () => {
  it('imports back an export with rotated secrets, pending retries, a deleted endpoint\'s delivery and an e-mailed PDF, unchanged', async () => {
    expect([endpoint(exported).secrets.length, goneAt(exported) >= 0, succeededAt(exported) >= 0]).toEqual([3, true, true])
    expect(exported.collections.emails![invoiceEmailAt(exported)]!.attachments[0].contentType).toBe('application/pdf')
    const imported = await api.post('/_sim/state/import', exported)
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    const again = (await api.get('/_sim/state')).body
    for (const name of ['webhookEndpoints', 'deliveries', 'emails', 'checkoutSessions'] as const) expect(again.collections[name], name).toEqual(exported.collections[name])
  })

  it.each<[string, (file: StateFile) => string]>([
    ['a delivery made after the clock', (file) => {
      const i = succeededAt(file)
      deliveries(file)[i]!.createdAt = now + DAY
      return `deliveries[${i}].createdAt`
    }],
    ['an attempt made after the clock', (file) => {
      const i = succeededAt(file)
      deliveries(file)[i]!.attempts[0].at = now + DAY
      return `deliveries[${i}].attempts[0].at`
    }],
    ['an attempt signed after real time', (file) => {
      const i = succeededAt(file)
      deliveries(file)[i]!.attempts[0].signedAt = Math.floor((Date.now() + DAY) / 1000)
      return `deliveries[${i}].attempts[0].signedAt`
    }],
    ['a retry a century ahead', (file) => {
      const i = pendingAt(file)
      deliveries(file)[i]!.nextAttemptAt = now + 100 * 365 * DAY
      return `deliveries[${i}].nextAttemptAt`
    }],
    ['a retry a millisecond later than the schedule sets it', (file) => {
      const i = pendingAt(file)
      deliveries(file)[i]!.nextAttemptAt = deliveries(file)[i]!.attempts[1].at + 5 * MINUTE + 1
      return `deliveries[${i}].nextAttemptAt`
    }],
    ['a first try later than the longest fault hold', (file) => {
      const i = pendingAt(file)
      Object.assign(deliveries(file)[i]!, { attempts: [], nextAttemptAt: deliveries(file)[i]!.createdAt + 2 * HOUR + 1 })
      return `deliveries[${i}].nextAttemptAt`
    }],
    ['a retry of a delivery that succeeded', (file) => {
      const i = succeededAt(file)
      deliveries(file)[i]!.nextAttemptAt = now
      return `deliveries[${i}].nextAttemptAt`
    }],
    ['a delivery sent elsewhere than its endpoint', (file) => {
      const i = pendingAt(file)
      deliveries(file)[i]!.url = 'http://169.254.169.254/latest/meta-data/'
      return `deliveries[${i}].url`
    }],
    ['a deleted endpoint\'s delivery to an address no endpoint may have', (file) => {
      const i = goneAt(file)
      deliveries(file)[i]!.url = 'http://169.254.169.254/latest/meta-data/'
      return `deliveries[${i}].url`
    }],
    ['a deleted endpoint\'s delivery with a password', (file) => {
      const i = goneAt(file)
      deliveries(file)[i]!.url = 'http://user:pw@127.0.0.1:9/gone'
      return `deliveries[${i}].url`
    }],
    ['an old secret verifying 1000 days', (file) => {
      endpoint(file).secrets.push({ secret: `whsec_${'Q'.repeat(32)}`, createdAt: now - 1000, expiresAt: now + 1000 * DAY })
      return `webhookEndpoints[0].secrets[3].expiresAt`
    }],
    ['an old secret verifying a millisecond past 72 hours after its rotation', (file) => {
      const { secrets } = endpoint(file)
      secrets[1].expiresAt = secrets[0].createdAt + 72 * HOUR + 1
      return 'webhookEndpoints[0].secrets[1].expiresAt'
    }],
    ['a rotated secret that never stops verifying', (file) => {
      endpoint(file).secrets[2].expiresAt = null
      return 'webhookEndpoints[0].secrets[2].expiresAt'
    }],
    ['a current secret that expires', (file) => {
      endpoint(file).secrets[0].expiresAt = now + HOUR
      return 'webhookEndpoints[0].secrets[0].expiresAt'
    }],
    ['a secret made after the clock, with its old one verifying 72 hours from then', (file) => {
      const { secrets } = endpoint(file)
      Object.assign(secrets[0], { createdAt: now + DAY })
      secrets[1].expiresAt = now + DAY + 72 * HOUR
      return 'webhookEndpoints[0].secrets[0].createdAt'
    }],
  ])('refuses %s', async (_what, forge) => {
    await refuses(forge)
  })

  it('refuses a retry a century ahead in a whole simulator\'s file (`bula serve --import`)', async () => {
    const whole = structuredClone(exportState(server().ctx.store)) as unknown as StateFile
    const i = deliveries(whole).findIndex((d) => d.endpointId === endpointId && d.status === 'pending' && d.attempts.length === 2)
    deliveries(whole)[i]!.nextAttemptAt += 100 * 365 * DAY
    const file = path.join(await tempFolder('bula-whole-'), 'state.json')
    await writeFile(file, JSON.stringify(whole))
    await expect(startServer({ port: 0, importFile: file, log: () => {} })).rejects.toThrow(`${file}: deliveries[${i}].nextAttemptAt is after`)
  })
})

/** Imports the forgery of the merchant's export: 400 naming the path it returns, and the merchant's state unchanged. */
async function refuses(forge: (file: StateFile) => string) {
  const file = structuredClone(exported)
  const param = forge(file)
  const before = (await api.get('/_sim/state')).body
  const refused = await api.post('/_sim/state/import', file)
  expect([refused.status, refused.body.error?.code, refused.body.error?.param], JSON.stringify(refused.body)).toEqual([400, 'invalid_request', param])
  expect((await api.get('/_sim/state')).body).toEqual(before)
}
