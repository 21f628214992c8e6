import type { ApiFault, ApiFaultAction, CreateApiFaultRequest, Mode } from '../../src/schemas/index.js'
import { draw } from './faults.js'

/** A fault in force, as the simulator keeps it: the API's view plus whose it is. */
export interface ApiFaultRecord extends ApiFault {
  merchantId: string
}

/** `*` matches every route faults may touch. */
export const ANY_ROUTE = '*'

/** The status of an `error` fault set without one: "try again later", the failure clients most often meet. */
export const DEFAULT_FAULT_STATUS = 503

/** At most this many faults per merchant and mode at once: enough for any test, and each request checks them all. */
export const MAX_FAULTS = 50

/** A route as faults name it: the upper-case method and the path as /openapi.json writes it (`GET /v1/invoices/{id}`). */
export const routeName = (method: string, openApiPath: string): string => `${method.toUpperCase()} ${openApiPath}`

/** `get  /v1/x` → `GET /v1/x`: the method in upper case and one space, so a hand-typed route compares as written. */
export function normalizeRoute(route: string): string {
  const trimmed = route.trim()
  if (trimmed === ANY_ROUTE) return ANY_ROUTE
  const match = /^([A-Za-z]+)\s+(\S+)$/.exec(trimmed)
  return match ? routeName(match[1]!, match[2]!) : trimmed
}

export function newApiFault(input: { id: string; merchantId: string; mode: Mode; route: string; request: CreateApiFaultRequest; now: number }): ApiFaultRecord {
  const { request } = input
  return {
    id: input.id,
    merchantId: input.merchantId,
    mode: input.mode,
    route: input.route,
    action: request.action,
    status: request.action === 'error' ? (request.status ?? DEFAULT_FAULT_STATUS) : null,
    delayMs: request.action === 'delay' ? (request.delayMs ?? null) : null,
    times: request.times ?? 1,
    probability: request.probability ?? 1,
    seed: request.seed ?? 0,
    matched: 0,
    injected: 0,
    createdAt: input.now,
  }
}

export const faultMatches = (fault: ApiFaultRecord, route: string): boolean => fault.route === ANY_ROUTE || fault.route === route

/**
 * Whether the fault strikes its next matching request: the `matched`th draw
 * of its seed against its probability, so one seed gives one sequence.
 * A probability of 1 always strikes, 0 never.
 */
export const strikes = (fault: ApiFaultRecord): boolean => fault.probability >= 1 || draw(fault.seed, fault.matched, 'api') < fault.probability

/** What a struck request gets, for the request log and the dashboard. */
export interface StruckFault {
  id: string
  action: ApiFaultAction
  status: number | null
  delayMs: number | null
}

export const presentApiFault = ({ merchantId: _m, ...fault }: ApiFaultRecord): ApiFault => fault
