import { describe, expect, it } from 'vitest'
import { ActivityReconstruction, type ActivityLookup } from '../../src/fixtures/export.js'
import { fixtureSchema } from '../../src/fixtures/fixture.js'
import { referencesIn, resolveReferences } from '../../src/fixtures/references.js'
import type { CheckoutSession, Event, EventType, Invoice } from '../../src/schemas/index.js'

const HOUR = 60 * 60 * 1000

const session = (id: string, fields: Partial<CheckoutSession> = {}): CheckoutSession => ({
  id,
  status: 'pending',
  mode: 'test',
  amount: 1500,
  currency: 'FJD',
  hostedUrl: `http://127.0.0.1/pay/${id}`,
  metadata: {},
  expiresAt: 24 * HOUR,
  createdAt: 0,
  successUrl: null,
  cancelUrl: null,
  ...fields,
})

const intent = (id: string, sessionId: string, status: string, provider = 'card') => ({
  id,
  checkoutSessionId: sessionId,
  mode: 'test',
  amount: 1500,
  currency: 'FJD',
  provider,
  status,
  failureReason: null,
  createdAt: 0,
  updatedAt: 0,
})

let eventCount = 0
const event = (type: EventType, object: object, createdAt = 0): Event => ({
  event_id: `evt_${++eventCount}`,
  type,
  mode: 'test',
  createdAt,
  data: { object: object as Record<string, unknown> },
})

/** The events one pay call with this outcome makes, as the simulator records them. */
const paid = (sessionId: string, intentId: string, outcome: 'succeeded' | 'failed', provider = 'card'): Event[] => [
  event('payment.processing', intent(intentId, sessionId, 'processing', provider)),
  event(`payment.${outcome}`, intent(intentId, sessionId, outcome, provider)),
  event(`checkout_session.${outcome}`, session(sessionId, { status: outcome })),
]

const INVOICE: Invoice = {
  id: 7,
  number: 'INV-0003',
  status: 'paid',
  overdue: false,
  mode: 'test',
  customerName: 'Nadi Hotel',
  customerEmail: null,
  items: [{ description: 'Mats', quantity: 3, unitPrice: 2500 }],
  taxLabel: 'VAT',
  taxPercent: 15,
  vatNumber: null,
  dueDate: '2026-12-31',
  subtotal: 7500,
  tax: 1125,
  total: 8625,
  url: 'http://127.0.0.1/i/x',
  pdfUrl: null,
  createdAt: 0,
  sentAt: 0,
  paidAt: 0,
  voidedAt: null,
}

/** Sessions and Invoices the lookup knows, as the API would answer them. */
function lookup(sessions: CheckoutSession[] = [], invoices: Invoice[] = []): ActivityLookup {
  return {
    session: async (id) => sessions.find((known) => known.id === id),
    invoice: async (number) => invoices.find((known) => known.number === number),
  }
}

async function reconstruct(events: Event[], known = lookup()) {
  const reconstruction = new ActivityReconstruction(known)
  await reconstruction.add(events)
  const steps = reconstruction.fixtureSteps()
  // Whatever it makes is a fixture the runner takes.
  expect(fixtureSchema.safeParse({ steps }).success).toBe(true)
  return { steps, skipped: reconstruction.skipped }
}

const requests = (steps: Awaited<ReturnType<typeof reconstruct>>['steps']) => steps.map((step) => `${step.method} ${step.path}`)

describe('ActivityReconstruction', () => {
  it('makes a pay step of a payment and its outcome, and creates the session once, as it was', async () => {
    const created = session('cs_a', { metadata: { order: '1' }, successUrl: 'https://kai.fj/ok', cancelUrl: 'https://kai.fj/no' })
    const events = paid('cs_a', 'pi_a', 'succeeded', 'mpaisa')
    const { steps, skipped } = await reconstruct(events, lookup([created]))
    expect(skipped).toEqual([])
    expect(steps).toEqual([
      {
        name: 'session_1',
        description: 'Recreates cs_a.',
        method: 'POST',
        path: '/v1/checkout-sessions',
        idempotencyKey: true,
        body: { amount: 1500, currency: 'FJD', metadata: { order: '1' }, successUrl: 'https://kai.fj/ok', cancelUrl: 'https://kai.fj/no' },
      },
      {
        description: `Makes ${events.map((made) => `${made.type} (${made.event_id})`).join(', ')}.`,
        method: 'POST',
        path: '/_sim/checkout-sessions/${session_1:id}/pay',
        body: { outcome: 'succeeded', provider: 'mpaisa' },
      },
    ])
  })

  it('copies text that looks like a reference as text: `${env:…}` in metadata never reads the environment when the fixture runs', async () => {
    const metadata = { template: 'Dear ${env:BULA_API_KEY}', [`\${oops:id}`]: '$${x:y}' }
    const created = session('cs_r', { metadata })
    const { steps } = await reconstruct(paid('cs_r', 'pi_r', 'succeeded'), lookup([created]))
    const body = steps[0]!.body as { metadata: Record<string, string> }
    expect(body.metadata).toEqual({ template: 'Dear $${env:BULA_API_KEY}', [`$\${oops:id}`]: '$$${x:y}' })
    expect(referencesIn(body)).toEqual([])
    expect(resolveReferences(body, { results: new Map(), env: { BULA_API_KEY: 'sk_test_secret' } })).toEqual({ amount: 1500, currency: 'FJD', metadata })
  })

  it('keeps the order of interleaved payments: processing and its outcome become two steps', async () => {
    const [processingA, succeededA, sessionA] = paid('cs_a', 'pi_a', 'succeeded', 'mpaisa')
    const events = [processingA!, ...paid('cs_b', 'pi_b', 'failed', 'mycash'), succeededA!, sessionA!]
    const { steps } = await reconstruct(events, lookup([session('cs_a'), session('cs_b', { quote: { amount: 1000, currency: 'USD', rate: '2.25', asOf: 0 } })]))
    expect(requests(steps)).toEqual([
      'POST /v1/checkout-sessions',
      'POST /_sim/checkout-sessions/${session_1:id}/pay',
      'POST /v1/checkout-sessions',
      'POST /_sim/checkout-sessions/${session_2:id}/pay',
      'POST /_sim/checkout-sessions/${session_1:id}/pay',
    ])
    expect(steps.map((step) => step.body)).toEqual([
      { amount: 1500, currency: 'FJD' },
      { outcome: 'processing', provider: 'mpaisa' },
      // A quoted price is quoted again, at the replaying merchant's rate.
      { quote: { amount: 1000, currency: 'USD' } },
      { outcome: 'failed', provider: 'mycash' },
      // The payment already has its Provider.
      { outcome: 'succeeded' },
    ])
    expect(steps[4]!.description).toBe(`Makes payment.succeeded (${succeededA!.event_id}), checkout_session.succeeded (${sessionA!.event_id}).`)
  })

  it('pays an Invoice through the Invoice, created and sent once, however many sessions it took', async () => {
    const invoiceSession = (id: string) => session(id, { amount: 8625, invoiceNumber: 'INV-0003' })
    const events = [...paid('cs_1', 'pi_1', 'failed'), ...paid('cs_2', 'pi_2', 'succeeded')]
    const { steps } = await reconstruct(events, lookup([invoiceSession('cs_1'), invoiceSession('cs_2')], [INVOICE]))
    expect(requests(steps)).toEqual([
      'POST /v1/invoices',
      'POST /v1/invoices/${invoice_1:id}/send',
      'POST /_sim/invoices/${invoice_1:id}/pay',
      'POST /_sim/invoices/${invoice_1:id}/pay',
    ])
    expect(steps[0]).toMatchObject({
      name: 'invoice_1',
      idempotencyKey: true,
      body: { customerName: 'Nadi Hotel', dueDate: '2026-12-31', items: INVOICE.items, taxLabel: 'VAT', taxPercent: 15 },
    })
    expect(steps[1]).toMatchObject({ idempotencyKey: true })
    expect(steps.slice(2).map((step) => step.body)).toEqual([
      { outcome: 'failed', provider: 'card' },
      { outcome: 'succeeded', provider: 'card' },
    ])
  })

  it('cancels, saying when the session had expired instead', async () => {
    const expired = session('cs_e', { status: 'cancelled' })
    const cancelled = session('cs_c', { status: 'cancelled', expiresAt: 2 * HOUR })
    const { steps } = await reconstruct([event('checkout_session.cancelled', expired, expired.expiresAt), event('checkout_session.cancelled', cancelled, HOUR)])
    expect(requests(steps)).toEqual([
      'POST /v1/checkout-sessions',
      'POST /v1/checkout-sessions/${session_1:id}/cancel',
      'POST /v1/checkout-sessions',
      'POST /v1/checkout-sessions/${session_2:id}/cancel',
    ])
    expect(steps[1]!.description).toMatch(/The session expired; a cancel makes the same event\.$/)
    expect(steps[3]!.description).not.toMatch(/expired/)
  })

  it('registers an endpoint the first time it is verified, and rotates it after', async () => {
    const endpoint = { id: 'we_1', url: 'https://kai.fj/hooks', mode: 'test', status: 'active', createdAt: 0, previousSecretExpiresAt: null }
    const { steps } = await reconstruct([event('webhook.verified', endpoint), event('webhook.verified', endpoint)])
    expect(steps).toMatchObject([
      { name: 'endpoint_1', method: 'POST', path: '/v1/webhook-endpoints', body: { url: 'https://kai.fj/hooks' } },
      { method: 'POST', path: '/v1/webhook-endpoints/${endpoint_1:endpoint.id}/rotate' },
    ])
  })

  it('pays out now for each test Payout, switching to the manual schedule once', async () => {
    const payout = { id: 'po_1', amount: 1500, rail: 'bank_transfer', status: 'paid', paidAt: 0, failureReason: null, createdAt: 0, mode: 'test', sentAt: null }
    const { steps } = await reconstruct([...paid('cs_a', 'pi_a', 'succeeded'), event('disbursement.sent', payout), ...paid('cs_b', 'pi_b', 'succeeded'), event('disbursement.sent', { ...payout, id: 'po_2' })], lookup([session('cs_a'), session('cs_b')]))
    expect(requests(steps).filter((request) => request.includes('payout') || request.includes('settings'))).toEqual([
      'PATCH /_sim/settings',
      'POST /_sim/payouts/request',
      'POST /_sim/payouts/request',
    ])
    expect(steps.find((step) => step.method === 'PATCH')?.body).toEqual({ payoutSchedule: 'manual' })
  })

  it('makes a payment whose first events came before the events read', async () => {
    const [, succeeded, ended] = paid('cs_a', 'pi_a', 'succeeded', 'mpaisa')
    const [, , failedSession] = paid('cs_b', 'pi_b', 'failed')
    const { steps } = await reconstruct([succeeded!, ended!, failedSession!], lookup([session('cs_a')]))
    expect(steps.map((step) => step.body)).toEqual([
      { amount: 1500, currency: 'FJD' },
      { outcome: 'succeeded', provider: 'mpaisa' },
      { amount: 1500, currency: 'FJD' },
      { outcome: 'failed' },
    ])
  })

  it('skips, with the reason, what no API call can make', async () => {
    const livePayout = { id: 'po_1', amount: 1, rail: 'wallet', status: 'pending', paidAt: null, failureReason: null, createdAt: 0, mode: 'live', sentAt: 0 }
    const events = [
      event('disbursement.failed', { ...livePayout, status: 'failed' }),
      event('disbursement.sent', livePayout),
      event('checkout_session.cancelled', session('cs_i', { invoiceNumber: 'INV-0009', status: 'cancelled' })),
      event('payment.processing', intent('pi_gone', 'cs_gone', 'processing')),
      event('payment.processing', { unexpected: true }),
    ]
    const { steps, skipped } = await reconstruct([...events, ...paid('cs_a', 'pi_a', 'succeeded')], lookup([session('cs_a')]))
    expect(steps).toHaveLength(2)
    expect(skipped.map(({ eventId, reason }) => [eventId, reason])).toEqual([
      [events[0]!.event_id, expect.stringContaining('live transfer fails')],
      [events[1]!.event_id, expect.stringContaining('live Payout')],
      [events[2]!.event_id, expect.stringContaining('Invoice INV-0009 was opened on the hosted page')],
      [events[3]!.event_id, 'its Checkout Session cs_gone no longer exists'],
      [events[4]!.event_id, 'its object is not a payment intent'],
    ])
  })
})
