import type { EventEmitter } from 'node:events'
import type { Mode, RequestLogEntry, RequestLogQuery } from '../../src/schemas/index.js'

/** Entries kept per merchant: enough for a test run, bounded so a long session stays flat in memory. */
export const REQUEST_LOG_SIZE = 1000

/**
 * An entry as the simulator keeps it: what the log shows, plus what `bula
 * doctor` reads and nobody else sees. Never a key, a body or an e-mail:
 * the key's id, and a digest of an idempotent request.
 */
export interface LoggedRequest extends RequestLogEntry {
  merchantId: string
  /** The id (`key_…`) of the key that made the call: rate limits and Retry-After are per key. */
  keyId: string
  /** SHA-256 of the method, path and body (keys sorted), on requests with an Idempotency-Key: tells a retry from another request. */
  requestDigest: string | null
  /** The id of what an idempotent write made or changed (`cs_…`, an Invoice's number id). */
  objectId: string | null
  /** The answer was a stored one replayed for a repeated Idempotency-Key. */
  replayed: boolean
  /** The Retry-After of a 429, in seconds. */
  retryAfterS: number | null
  /** Sent by the bula CLI itself (its User-Agent): a person's command, not the integration `bula doctor` reviews. */
  byBulaCli: boolean
}

/**
 * Every authenticated API call, per merchant, newest last, in a ring. It
 * lives in memory (a restart starts it afresh): it is a debugging aid, not
 * data the API owns.
 */
export class RequestLog {
  private readonly byMerchant = new Map<string, LoggedRequest[]>()

  constructor(private readonly bus: EventEmitter) {}

  record(entry: LoggedRequest): void {
    let entries = this.byMerchant.get(entry.merchantId)
    if (!entries) {
      entries = []
      this.byMerchant.set(entry.merchantId, entries)
    }
    entries.push(entry)
    // Trimmed once it holds twice the size, not on every request (that moved 1,000 entries each time); list() reads the newest REQUEST_LOG_SIZE only.
    if (entries.length >= 2 * REQUEST_LOG_SIZE) entries.splice(0, entries.length - REQUEST_LOG_SIZE)
    this.bus.emit('request', entry)
  }

  /**
   * The entries `bula doctor` reads: the merchant's of one mode still kept, finished at `since` or later, oldest
   * first, the bula CLI's own calls included (`byBulaCli`): doctor leaves them out of its checks and counts them.
   */
  entries(merchantId: string, mode: Mode, since: number | null): LoggedRequest[] {
    const entries = this.byMerchant.get(merchantId) ?? []
    return entries.slice(-REQUEST_LOG_SIZE).filter((entry) => entry.mode === mode && (since === null || entry.at >= since))
  }

  /** Newest first. */
  list(merchantId: string, mode: Mode, query: RequestLogQuery): RequestLogEntry[] {
    const entries = this.byMerchant.get(merchantId) ?? []
    const out: RequestLogEntry[] = []
    const oldest = Math.max(0, entries.length - REQUEST_LOG_SIZE)
    for (let i = entries.length - 1; i >= oldest && out.length < (query.limit ?? 100); i--) {
      const entry = entries[i]!
      if (entry.mode === mode && matches(entry, query)) out.push(present(entry))
    }
    return out
  }
}

export function matches(entry: RequestLogEntry, query: Pick<RequestLogQuery, 'status' | 'path'>): boolean {
  if (query.status !== undefined) {
    const wanted = query.status.endsWith('xx') ? String(entry.status)[0] === query.status[0] : String(entry.status) === query.status
    if (!wanted) return false
  }
  return query.path === undefined || entry.path.startsWith(query.path)
}

export const present = (entry: LoggedRequest): RequestLogEntry => ({
  at: entry.at,
  mode: entry.mode,
  method: entry.method,
  path: entry.path,
  status: entry.status,
  latencyMs: entry.latencyMs,
  idempotencyKey: entry.idempotencyKey,
  requestId: entry.requestId,
  fault: entry.fault,
})
