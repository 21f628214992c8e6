import { z } from 'zod'
import { timestampSchema } from './common.js'

/** A one-time link into the web dashboard (`bula dashboard`). */
export const dashboardLoginLinkSchema = z.object({
  /** Signs in on the first visit only; the address holds a random token, never the key. */
  url: z.string(),
  /** Wall-clock time after which the link no longer works (5 minutes). */
  expiresAt: timestampSchema,
})
export type DashboardLoginLink = z.infer<typeof dashboardLoginLinkSchema>
