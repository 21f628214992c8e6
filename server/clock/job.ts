/** A due action on a merchant's clock, kept in the store so it survives restarts. */
export interface JobRecord {
  id: string
  merchantId: string
  /** Merchant-clock time at which the action runs. */
  dueAt: number
  kind: string
  payload: Record<string, unknown>
}
