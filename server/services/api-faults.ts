import { apiError } from '../domain/error-catalog.js'
import { notFound } from '../../src/errors.js'
import type { ApiFault, CreateApiFaultRequest, Mode } from '../../src/schemas/index.js'
import { MAX_FAULTS, faultMatches, newApiFault, presentApiFault, strikes, type ApiFaultRecord, type StruckFault } from '../domain/api-faults.js'
import { newId } from '../ids.js'
import { merchantModeGroup } from '../store/collections.js'

/**
 * The API faults in force, per merchant and mode, oldest first
 * (docs/faults-and-doctor.md). They live in memory, as the request log and
 * the rate limiter do: a fault is a test's set-up, not data the API owns,
 * and a restart clears them. A request only ever meets the faults of the
 * merchant and mode its key authenticates as.
 */
export class ApiFaults {
  private readonly byMerchantMode = new Map<string, ApiFaultRecord[]>()

  /** `route` is already checked against the routes the app declares (server/http/faults.ts). */
  add(merchantId: string, mode: Mode, route: string, request: CreateApiFaultRequest, now: number): ApiFault {
    const group = merchantModeGroup(merchantId, mode)
    const faults = this.byMerchantMode.get(group) ?? []
    if (faults.length >= MAX_FAULTS) {
      throw apiError('invalid_request', `At most ${MAX_FAULTS} faults can be in force at once in one mode; remove some (DELETE /_sim/faults).`)
    }
    const fault = newApiFault({ id: newId('flt'), merchantId, mode, route, request, now })
    this.byMerchantMode.set(group, [...faults, fault])
    return presentApiFault(fault)
  }

  list(merchantId: string, mode: Mode): ApiFault[] {
    return (this.byMerchantMode.get(merchantModeGroup(merchantId, mode)) ?? []).map(presentApiFault)
  }

  /** Another merchant's or mode's fault is not found, as any object is. */
  remove(merchantId: string, mode: Mode, id: string): void {
    const group = merchantModeGroup(merchantId, mode)
    const faults = this.byMerchantMode.get(group) ?? []
    if (!faults.some((fault) => fault.id === id)) throw notFound('fault')
    this.keep(group, faults.filter((fault) => fault.id !== id))
  }

  /** Removes every fault of the merchant and mode; returns how many there were. */
  clear(merchantId: string, mode: Mode): number {
    const group = merchantModeGroup(merchantId, mode)
    const count = this.byMerchantMode.get(group)?.length ?? 0
    this.byMerchantMode.delete(group)
    return count
  }

  /** Whether any fault is in force for the merchant and mode: the one check a request pays when none is. */
  any(merchantId: string, mode: Mode): boolean {
    return this.byMerchantMode.has(merchantModeGroup(merchantId, mode))
  }

  /**
   * The fault a request to `route` meets, if any. Faults are checked oldest
   * first; each one the request matches counts it (a fault is gone after
   * `times` matches) and draws whether it strikes; the first that strikes
   * is the request's, and later ones are not consulted.
   */
  take(merchantId: string, mode: Mode, route: string): StruckFault | undefined {
    const group = merchantModeGroup(merchantId, mode)
    const faults = this.byMerchantMode.get(group)
    if (!faults) return undefined
    let struck: StruckFault | undefined
    const next: ApiFaultRecord[] = []
    for (const fault of faults) {
      if (struck || !faultMatches(fault, route)) {
        next.push(fault)
        continue
      }
      const hit = strikes(fault)
      const counted = { ...fault, matched: fault.matched + 1, injected: fault.injected + (hit ? 1 : 0) }
      if (counted.matched < counted.times) next.push(counted)
      if (hit) struck = { id: fault.id, action: fault.action, status: fault.status, delayMs: fault.delayMs }
    }
    this.keep(group, next)
    return struck
  }

  private keep(group: string, faults: ApiFaultRecord[]): void {
    if (faults.length === 0) this.byMerchantMode.delete(group)
    else this.byMerchantMode.set(group, faults)
  }
}
