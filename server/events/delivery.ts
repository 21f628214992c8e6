import { performance } from 'node:perf_hooks'
import type { DeliveryAttempt, Mode } from '../../src/schemas/index.js'
import { postReadingAtMost } from '../../src/webhooks/answer.js'
import { signedHeaders } from '../../src/webhooks/signature.js'
import { notFound } from '../../src/errors.js'
import type { Caller, ServiceContext } from '../context.js'
import { planFaults, type FaultPlan } from '../domain/faults.js'
import {
  activeSecrets,
  isSuccess,
  nextRetryAt,
  type DeliveryRecord,
  type WebhookEndpointRecord,
} from '../domain/webhook-endpoint.js'
import { DELIVER_JOB, registerTargetedJob, scheduleTargetedJob } from '../clock/targeted-jobs.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'
import { eventPayload, type EventRecord } from './payload.js'

const RESPONSE_SNIPPET = 500

/** The caller's endpoint of its mode with this id, if there is one. */
export function findOwnEndpoint(ctx: ServiceContext, caller: Caller, id: string): WebhookEndpointRecord | undefined {
  const endpoint = ctx.store.get('webhookEndpoints', id)
  return endpoint && endpoint.merchantId === caller.merchant.id && endpoint.mode === caller.mode ? endpoint : undefined
}

export function ownEndpoint(ctx: ServiceContext, caller: Caller, id: string): WebhookEndpointRecord {
  const endpoint = findOwnEndpoint(ctx, caller, id)
  if (!endpoint) throw notFound('webhook endpoint')
  return endpoint
}

/** The endpoints that hear an event: every active endpoint of its merchant and mode. */
export function activeEndpoints(ctx: ServiceContext, merchantId: string, mode: string): WebhookEndpointRecord[] {
  return ctx.store
    .group('webhookEndpoints', 'byMerchantMode', merchantModeGroup(merchantId, mode))
    .map((id) => ctx.store.get('webhookEndpoints', id))
    .filter((endpoint): endpoint is WebhookEndpointRecord => endpoint?.status === 'active')
}

/**
 * A delivery of the event to each endpoint, due now on the merchant's clock;
 * the queue lives in the store. Under `/_sim/webhook-faults` a delivery may
 * be held back, sent twice, or have its first attempt fail; the endpoint
 * check (`webhook.verified`) is always faithful.
 */
export function enqueueDeliveries(
  ctx: ServiceContext,
  event: EventRecord,
  endpoints: readonly WebhookEndpointRecord[],
): DeliveryRecord[] {
  const now = ctx.clock.now(event.merchantId)
  return endpoints.flatMap((endpoint) => {
    const plan = event.type === 'webhook.verified' ? undefined : drawFaults(ctx, event.merchantId, event.mode)
    const dueAt = now + (plan?.holdMs ?? 0)
    return Array.from({ length: plan?.duplicate ? 2 : 1 }, () => {
      const delivery: DeliveryRecord = {
        id: newId('dlv'),
        merchantId: event.merchantId,
        mode: event.mode,
        eventId: event.id,
        endpointId: endpoint.id,
        url: endpoint.url,
        status: 'pending',
        attempts: [],
        nextAttemptAt: dueAt,
        createdAt: now,
        failFirstAttempt: plan?.failFirstAttempt ?? false,
      }
      ctx.store.put('deliveries', delivery)
      scheduleTargetedJob(ctx, DELIVER_JOB, delivery, dueAt)
      return delivery
    })
  })
}

/**
 * Cancels the endpoint's pending deliveries when it is deleted, so that the
 * event log shows no retry that will never come; their jobs then find them
 * cancelled and do nothing.
 */
export function cancelDeliveriesTo(ctx: ServiceContext, endpointId: string): void {
  // A copy: group() is the live array, and each put below touches the index.
  for (const id of [...ctx.store.group('deliveries', 'byEndpoint', endpointId)]) {
    const delivery = ctx.store.get('deliveries', id)
    if (delivery?.status === 'pending') ctx.store.put('deliveries', { ...delivery, status: 'cancelled', nextAttemptAt: null })
  }
}

/** The next fault plan of the merchant's mode, counting the draw so a seeded run repeats. */
function drawFaults(ctx: ServiceContext, merchantId: string, mode: Mode): FaultPlan | undefined {
  const merchant = ctx.store.get('merchants', merchantId)
  const faults = merchant?.webhookFaults[mode]
  if (!merchant || !faults) return undefined
  ctx.store.put('merchants', { ...merchant, webhookFaults: { ...merchant.webhookFaults, [mode]: { ...faults, drawn: faults.drawn + 1 } } })
  return planFaults(faults, faults.drawn)
}

async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Omit<DeliveryAttempt, 'at' | 'signedAt'>> {
  const started = performance.now()
  try {
    const { status, text } = await postReadingAtMost(url, { headers, body, signal: AbortSignal.timeout(timeoutMs) })
    return { status, error: null, latencyMs: Math.round(performance.now() - started), response: text.slice(0, RESPONSE_SNIPPET) }
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : describeSendFailure(error)
    return { status: null, error: reason, latencyMs: Math.round(performance.now() - started), response: '' }
  }
}

function describeSendFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
}

/**
 * One attempt of one delivery: signed with every secret valid at the
 * attempt (two during a rotation overlap), timestamped with real time so a
 * receiver's 5-minute window works after a clock advance. A failure is
 * retried on the merchant's clock with the same event id.
 */
async function attempt(ctx: ServiceContext, delivery: DeliveryRecord, dueAt: number): Promise<string | void> {
  if (delivery.status !== 'pending') return
  const deliveryId = delivery.id
  // Only the delivery's own merchant's and mode's endpoint and event: anything else is treated as gone.
  const own = <D extends { merchantId: string; mode: string }>(doc: D | undefined): D | undefined =>
    doc && doc.merchantId === delivery.merchantId && doc.mode === delivery.mode ? doc : undefined
  const endpoint = own(ctx.store.get('webhookEndpoints', delivery.endpointId))
  const event = own(ctx.store.get('events', delivery.eventId))
  if (!endpoint || !event) {
    ctx.store.put('deliveries', { ...delivery, status: 'cancelled', nextAttemptAt: null })
    return `delivery ${delivery.id} cancelled: its endpoint was deleted`
  }
  const replacements = (): number => ctx.stateReplacements.get(`${delivery.merchantId}:${delivery.mode}`) ?? 0
  const replacedBefore = replacements()
  // The event reaches a receiver only once it is on disk.
  await ctx.store.commit()
  // Replaced while it was written: the old state's try is not sent (the new state's own try is queued, if it has one).
  if (replacements() !== replacedBefore) return `${event.type} ${event.id} → ${endpoint.url}: not sent, a state reset or import replaced the delivery`
  const body = JSON.stringify(eventPayload(event))
  const signedAt = ctx.clock.wallSeconds()
  const headers = signedHeaders(activeSecrets(endpoint, dueAt), signedAt, body, event.id)
  const result =
    delivery.failFirstAttempt && delivery.attempts.length === 0
      ? { status: null, error: 'fault injected: this attempt was dropped before the receiver', latencyMs: 0, response: '' }
      : await post(endpoint.url, headers, body, ctx.webhookTimeoutMs)
  const latest = ctx.store.get('deliveries', deliveryId)
  // A state reset or import while this attempt was out replaced the delivery with the state's own: a reset removed it,
  // and an import (of an export taken while it was out, say) brought it back pending, with its own try queued. Recorded
  // there too, the answer made a second retry chain, and the receiver got every later try twice.
  if (!latest || replacements() !== replacedBefore) {
    return `${event.type} ${event.id} → ${endpoint.url}: answered after a state reset or import replaced the delivery; not recorded`
  }
  const attempts = [...latest.attempts, { at: dueAt, signedAt, ...result }]
  const succeeded = isSuccess(attempts.at(-1)!)
  // The endpoint deleted while this attempt was out: recorded, and not retried.
  const cancelled = latest.status === 'cancelled'
  const retryAt = succeeded || cancelled ? null : nextRetryAt(dueAt, attempts.length)
  ctx.store.put('deliveries', {
    ...latest,
    attempts,
    status: cancelled ? 'cancelled' : succeeded ? 'succeeded' : retryAt === null ? 'failed' : 'pending',
    nextAttemptAt: retryAt,
  })
  if (succeeded && event.type === 'webhook.verified') {
    const current = ctx.store.get('webhookEndpoints', endpoint.id)
    if (current && current.status !== 'active') ctx.store.put('webhookEndpoints', { ...current, status: 'active' })
  }
  if (retryAt !== null) scheduleTargetedJob(ctx, DELIVER_JOB, latest, retryAt)
  const outcome = result.status === null ? result.error : `HTTP ${result.status}`
  return `${event.type} ${event.id} → ${endpoint.url}: ${outcome}${retryAt === null ? '' : ', retry scheduled'}`
}

export function registerDeliveryJobs(ctx: ServiceContext): void {
  registerTargetedJob<'deliveries'>(ctx, DELIVER_JOB, (delivery, job) => attempt(ctx, delivery, job.dueAt), { awaitsNetwork: true })
  requeueCutAttempts(ctx)
}

/**
 * An attempt's job is used up when the attempt starts, and the next one is
 * written only once the receiver has answered. A process killed in between
 * (kill -9, a crash, the machine going down) left the delivery pending with
 * no job, never tried again nor failed. At start-up each such delivery gets
 * its job back, due when the cut attempt was: the attempt is made again,
 * and the receiver may see the event twice, as after any lost answer.
 */
function requeueCutAttempts(ctx: ServiceContext): void {
  const queued = new Set<unknown>()
  for (const job of ctx.store.values('jobs')) if (job.kind === DELIVER_JOB) queued.add(job.payload.deliveryId)
  for (const delivery of ctx.store.values('deliveries')) {
    if (delivery.status !== 'pending' || queued.has(delivery.id)) continue
    scheduleTargetedJob(ctx, DELIVER_JOB, delivery, delivery.nextAttemptAt ?? ctx.clock.now(delivery.merchantId))
  }
}
