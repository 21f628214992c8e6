import { z } from 'zod'

// Kept apart from profiles.ts so that zod is loaded only when a config file
// is actually read: commands that get their connection from the environment
// start without it.

export const profileSchema = z.looseObject({
  baseUrl: z.string(),
  apiKey: z.string().optional(),
  publishableKey: z.string().optional(),
})
export type Profile = z.infer<typeof profileSchema>

// Loose objects keep fields a newer bula wrote, so an older one saving a
// profile does not drop them.
export const configSchema = z.looseObject({
  current: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
})
export type BulaConfig = z.infer<typeof configSchema>
