import type { DoctorQuery, DoctorReport } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { diagnose, type DoctorDelivery, type DoctorEndpoint } from '../domain/doctor.js'
import { deliveriesOf } from '../events/event-log.js'
import { merchantModeGroup } from '../store/collections.js'
import { getMerchant } from './merchants.js'
import type { LoggedRequest } from './request-log.js'

/** A create of a Checkout Session that made one: a replay or a lost answer names the session too. */
const isSessionCreate = (request: LoggedRequest): boolean =>
  request.method === 'POST' && request.path.split('?')[0] === '/v1/checkout-sessions' && request.objectId !== null

/**
 * `bula doctor` (`GET /_sim/doctor`): the merchant's own request log,
 * deliveries, endpoints and Checkout Sessions of the caller's mode, in the
 * window asked for, judged by the checks of server/domain/doctor.ts. Reads
 * only; the request log holds the last 1000 calls.
 *
 * It reviews the integration, so the bula CLI's calls are left out (and
 * counted), and so are the sessions the integration did not create: those
 * of `bula sessions create`, and those the simulator opens itself to pay an
 * invoice. A session is judged when a create request doctor reads made it.
 */
export function doctorReport(ctx: ServiceContext, caller: Caller, query: DoctorQuery): DoctorReport {
  const { mode } = caller
  const merchant = getMerchant(ctx, caller.merchant.id)
  const group = merchantModeGroup(merchant.id, mode)
  const now = ctx.clock.now(merchant.id)
  const since = query.sinceMs === undefined ? null : Math.max(0, now - query.sinceMs)
  const inWindow = (at: number): boolean => since === null || at >= since

  const endpoints = ctx.store.group('webhookEndpoints', 'byMerchantMode', group).map((id) => ctx.store.get('webhookEndpoints', id)!)
  const verificationAttempts = new Map<string, DoctorEndpoint['verificationAttempts'][number][]>()
  const deliveries: DoctorDelivery[] = []
  let eventCount = 0
  for (const eventId of ctx.store.group('events', 'byMerchantMode', group)) {
    const event = ctx.store.get('events', eventId)!
    if (inWindow(event.createdAt)) eventCount++
    for (const delivery of deliveriesOf(ctx, event.id)) {
      if (event.type === 'webhook.verified') {
        verificationAttempts.set(delivery.endpointId, [
          ...(verificationAttempts.get(delivery.endpointId) ?? []),
          ...delivery.attempts.map((attempt) => ({ ...attempt, eventId: event.id })),
        ])
      }
      // A retry of an older event's delivery still says how the receiver answers now.
      const attempts = delivery.attempts.filter((attempt) => inWindow(attempt.at))
      if (attempts.length > 0) deliveries.push({ eventId: event.id, eventType: event.type, endpointId: delivery.endpointId, url: delivery.url, attempts })
    }
  }
  const logged = ctx.requestLog.entries(merchant.id, mode, since)
  // A person's commands, not the integration: `bula trigger` twice is two creates on purpose, not a retry.
  const requests = logged.filter((request) => !request.byBulaCli)
  const created = new Set(requests.filter(isSessionCreate).map((request) => request.objectId))
  const sessions = ctx.store
    .group('checkoutSessions', 'byMerchantMode', group)
    .filter((id) => created.has(id))
    .map((id) => ctx.store.get('checkoutSessions', id)!)

  return diagnose({
    mode,
    now,
    since,
    requests,
    bulaCliRequests: logged.length - requests.length,
    eventCount,
    deliveries,
    endpoints: endpoints.map((endpoint) => ({
      id: endpoint.id,
      url: endpoint.url,
      status: endpoint.status,
      createdAt: endpoint.createdAt,
      verificationAttempts: verificationAttempts.get(endpoint.id) ?? [],
    })),
    sessions: sessions.map((session) => ({ id: session.id, createdAt: session.createdAt, successUrl: session.successUrl, cancelUrl: session.cancelUrl })),
    account: {
      verification: merchant.verification.status,
      hasPayoutDestination: merchant.settings.payoutDestination !== null,
      receiptsEnabled: merchant.settings.receiptsEnabled,
    },
  })
}

