import { invalidRequest } from '../../src/errors.js'
import type {
  CreateWebhookEndpointRequest,
  DeletedWebhookEndpoint,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { hasCredentials, isAllowedUrl } from '../domain/urls.js'
import { MAX_SIGNING_SECRETS, SECRET_OVERLAP_MS, presentEndpoint, type WebhookEndpointRecord } from '../domain/webhook-endpoint.js'
import { cancelDeliveriesTo, enqueueDeliveries, ownEndpoint } from '../events/delivery.js'
import { recordEvent } from '../events/event-log.js'
import { newId, newSecret } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'

/** `webhook.verified` goes to the one endpoint being checked, whatever its status (spec, Events). */
function sendVerification(ctx: ServiceContext, endpoint: WebhookEndpointRecord): void {
  const event = recordEvent(ctx, endpoint.merchantId, endpoint.mode, 'webhook.verified', presentEndpoint(endpoint, ctx.clock.now(endpoint.merchantId)))
  enqueueDeliveries(ctx, event, [endpoint])
}

const withSecret = (endpoint: WebhookEndpointRecord, now: number): WebhookEndpointWithSecret => ({
  ...presentEndpoint(endpoint, now),
  secret: endpoint.secrets[0]!.secret,
})

/** The endpoint hears the mode of the key that registered it. */
export function registerEndpoint(ctx: ServiceContext, caller: Caller, request: CreateWebhookEndpointRequest): WebhookEndpointWithSecret {
  if (!isAllowedUrl(request.url, caller.mode, ctx.allowedHosts)) {
    throw invalidRequest(
      caller.mode === 'test' ? 'url must be HTTPS (or http on localhost in test mode).' : 'url must be HTTPS in live mode.',
      'url',
    )
  }
  if (hasCredentials(request.url)) throw invalidRequest('url must not hold a user name or password: every delivery is signed with the endpoint secret instead.', 'url')
  const now = ctx.clock.now(caller.merchant.id)
  const endpoint: WebhookEndpointRecord = {
    id: newId('we'),
    merchantId: caller.merchant.id,
    mode: caller.mode,
    url: request.url,
    status: 'pending',
    createdAt: now,
    secrets: [{ secret: newSecret('whsec_'), createdAt: now, expiresAt: null }],
  }
  ctx.store.put('webhookEndpoints', endpoint)
  sendVerification(ctx, endpoint)
  return withSecret(endpoint, now)
}

export function listEndpoints(ctx: ServiceContext, caller: Caller): WebhookEndpoint[] {
  const now = ctx.clock.now(caller.merchant.id)
  return ctx.store
    .group('webhookEndpoints', 'byMerchantMode', merchantModeGroup(caller.merchant.id, caller.mode))
    .map((id) => ctx.store.get('webhookEndpoints', id))
    .filter((endpoint): endpoint is WebhookEndpointRecord => endpoint !== undefined)
    .map((endpoint) => presentEndpoint(endpoint, now))
}

/** A deleted endpoint gets nothing more: its pending deliveries are cancelled. */
export function deleteEndpoint(ctx: ServiceContext, caller: Caller, id: string): DeletedWebhookEndpoint {
  ownEndpoint(ctx, caller, id)
  ctx.store.delete('webhookEndpoints', id)
  cancelDeliveriesTo(ctx, id)
  return { id, deleted: true }
}

/** A new secret, returned once; the previous one keeps verifying for 72 hours of the merchant's clock. */
export function rotateEndpointSecret(ctx: ServiceContext, caller: Caller, id: string): WebhookEndpointWithSecret {
  const endpoint = ownEndpoint(ctx, caller, id)
  const now = ctx.clock.now(caller.merchant.id)
  // The secret being replaced starts its 72 hours; one replaced earlier keeps the rest of its own, as
  // that rotation promised (an API key rotated twice does the same). Past MAX_SIGNING_SECRETS, the oldest ends now.
  const kept = endpoint.secrets
    .filter((s) => s.expiresAt === null || now < s.expiresAt)
    .map((s) => (s.expiresAt === null ? { ...s, expiresAt: now + SECRET_OVERLAP_MS } : s))
  const rotated: WebhookEndpointRecord = {
    ...endpoint,
    secrets: [{ secret: newSecret('whsec_'), createdAt: now, expiresAt: null }, ...kept].slice(0, MAX_SIGNING_SECRETS),
  }
  ctx.store.put('webhookEndpoints', rotated)
  sendVerification(ctx, rotated)
  return withSecret(rotated, now)
}
