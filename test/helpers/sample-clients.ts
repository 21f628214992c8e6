import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'

// Two checkout integrations as a merchant's developer might write them, on
// plain fetch: the good one makes its Idempotency-Key once per order and
// sends it on every retry; the bad one makes a new key for each attempt
// (and, in doctorBadShop, breaks every other rule bula doctor checks). The
// retry loop is the one docs/faults-and-doctor.md shows.

export interface Shop {
  baseUrl: string
  secretKey: string
}

export interface CreateResult {
  status: number
  session: { id: string; status: string; amount: number }
  /** The answer was the stored one, replayed for a repeated key. */
  replayed: boolean
  attempts: number
}

/**
 * POSTs a Checkout Session, retrying a dropped connection, a 5xx or a 429
 * (after its Retry-After) up to `attempts` times. `keyFor(attempt)` gives
 * the Idempotency-Key of each attempt: that is the whole difference between
 * a client that survives a lost answer and one that charges twice.
 */
async function createWithRetries(shop: Shop, body: object, keyFor: (attempt: number) => string, attempts = 4): Promise<CreateResult> {
  for (let attempt = 1; ; attempt++) {
    let response: Response | undefined
    try {
      response = await fetch(`${shop.baseUrl}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json', 'idempotency-key': keyFor(attempt) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      })
    } catch (error) {
      // No answer: the session may or may not exist. Only the same key makes a retry safe.
      if (attempt === attempts) throw error
    }
    if (response && response.status !== 429 && response.status < 500) {
      return { status: response.status, session: (await response.json()) as CreateResult['session'], replayed: response.headers.get('idempotent-replayed') === 'true', attempts: attempt }
    }
    if (attempt === attempts) throw new Error(`create failed after ${attempts} attempts: HTTP ${response?.status}`)
    const retryAfter = Number(response?.headers.get('retry-after') ?? 0)
    await sleep(retryAfter > 0 ? retryAfter * 1000 : 100 * 2 ** attempt)
  }
}

export interface Order {
  id: string
  amount: number
}

const sessionBody = (order: Order, site: string) => ({
  amount: order.amount,
  currency: 'FJD',
  metadata: { order: order.id },
  successUrl: `${site}/thanks`,
  cancelUrl: `${site}/cart`,
})

/** The right way: one key per order, made before the first attempt and sent on every retry. */
export const goodCreateSession = (shop: Shop, order: Order, site = 'https://shop.example') =>
  createWithRetries(shop, sessionBody(order, site), () => `order-${order.id}`)

/** The wrong way: a fresh key for every attempt, so a retry after a lost answer is a second session. */
export const badCreateSession = (shop: Shop, order: Order, site = 'https://shop.example') =>
  createWithRetries(shop, sessionBody(order, site), () => randomUUID())

/** Polls the session until it is not pending, twelve times in a row: what doctor calls polling. */
export async function badWaitForPayment(shop: Shop, sessionId: string): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await fetch(`${shop.baseUrl}/v1/checkout-sessions/${sessionId}`, { headers: { authorization: `Bearer ${shop.secretKey}` } })
  }
}

/** Keys the create by the customer's cart rather than the order: a second order from the same cart reuses the key. */
export async function badCartKeyedCreates(shop: Shop): Promise<number[]> {
  const statuses: number[] = []
  for (const amount of [1500, 2500]) {
    const response = await fetch(`${shop.baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'cart-77' },
      body: JSON.stringify({ amount, currency: 'FJD' }),
    })
    statuses.push(response.status)
  }
  return statuses
}

/**
 * Creates sessions from the browser with the publishable key until it is
 * rate limited (120 a minute), then retries at once, ignoring Retry-After.
 */
export async function badBrowserBurst(baseUrl: string, publishableKey: string): Promise<number[]> {
  const statuses: number[] = []
  const create = async (key: string) => {
    const response = await fetch(`${baseUrl}/v1/checkout-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${publishableKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: 500, currency: 'FJD' }),
    })
    statuses.push(response.status)
  }
  for (let i = 0; i <= 120; i++) await create(`burst-${i}`)
  await create('burst-120')
  return statuses
}
