import type { IndexSpec } from '../../server/store/index.js'

/** The documents of crash-child.ts: two per commit, grouped by run and loop. */
export interface CrashItem {
  id: string
  group: string
  n: number
  pad: string
}

export type CrashSchema = { items: CrashItem }

export const CRASH_INDEXES: IndexSpec<CrashSchema> = { groups: { items: { byLoop: (item) => item.group } } }
