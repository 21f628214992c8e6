import { z } from 'zod'
import { modeSchema, timestampSchema } from './common.js'
import { API_FAULT_ACTIONS, API_FAULT_STATUSES } from './enums.js'

export const apiFaultActionSchema = z.enum(API_FAULT_ACTIONS)
export type ApiFaultAction = z.infer<typeof apiFaultActionSchema>

/** The longest an API answer can be held back: a minute, longer than most clients' timeouts. */
export const MAX_FAULT_DELAY_MS = 60_000

/**
 * A fault for the merchant's own client to survive (docs/simulator.md, "API
 * faults"): `route` is `*` or a method and a path of /openapi.json (`GET
 * /v1/invoices/{id}`). It is in force for the next `times` requests of the
 * key's merchant and mode that match, each faulted with `probability`,
 * drawn from a generator seeded with `seed`, so one seed gives one sequence.
 */
export const createApiFaultRequestSchema = z
  .strictObject({
    route: z.string().min(1).max(300),
    action: apiFaultActionSchema,
    /** The status of an `error` fault: 500, 502, 503 or 504 (default 503). */
    status: z.literal(API_FAULT_STATUSES).optional(),
    /** How long a `delay` fault holds the answer back, in ms, up to 60,000. */
    delayMs: z.number().int().min(1).max(MAX_FAULT_DELAY_MS).optional(),
    /** How many matching requests the fault is in force for (default 1). */
    times: z.number().int().min(1).max(100_000).default(1),
    /** The share of those requests that are faulted (default 1: every one). */
    probability: z.number().min(0).max(1).default(1),
    /** Seeds the draws of `probability` (default 0). */
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
  })
  .superRefine((fault, ctx) => {
    if (fault.status !== undefined && fault.action !== 'error') ctx.addIssue({ code: 'custom', path: ['status'], message: 'status goes with action "error" only' })
    if (fault.action === 'delay' && fault.delayMs === undefined) ctx.addIssue({ code: 'custom', path: ['delayMs'], message: 'action "delay" needs delayMs' })
    if (fault.delayMs !== undefined && fault.action !== 'delay') ctx.addIssue({ code: 'custom', path: ['delayMs'], message: 'delayMs goes with action "delay" only' })
  })
export type CreateApiFaultRequest = z.input<typeof createApiFaultRequestSchema>

export const apiFaultSchema = z.object({
  id: z.string(),
  mode: modeSchema,
  route: z.string(),
  action: apiFaultActionSchema,
  /** The status an `error` fault answers; null for the other actions. */
  status: z.number().int().nullable(),
  /** How long a `delay` fault holds the answer back; null for the other actions. */
  delayMs: z.number().int().nullable(),
  times: z.number().int(),
  probability: z.number(),
  seed: z.number().int(),
  /** Matching requests so far; the fault is gone once this reaches `times`. */
  matched: z.number().int(),
  /** Of those, the requests it faulted. */
  injected: z.number().int(),
  createdAt: timestampSchema,
})
export type ApiFault = z.infer<typeof apiFaultSchema>

export const apiFaultResponseSchema = z.object({ fault: apiFaultSchema })
export type ApiFaultResponse = z.infer<typeof apiFaultResponseSchema>

/** The faults in force for the key's merchant and mode, oldest first (the order they are checked in). */
export const apiFaultListSchema = z.object({ data: z.array(apiFaultSchema) })
export type ApiFaultList = z.infer<typeof apiFaultListSchema>

export const deletedApiFaultSchema = z.object({ id: z.string(), deleted: z.literal(true) })
export type DeletedApiFault = z.infer<typeof deletedApiFaultSchema>

export const clearedApiFaultsSchema = z.object({
  /** How many faults were removed. */
  deleted: z.number().int(),
})
export type ClearedApiFaults = z.infer<typeof clearedApiFaultsSchema>

/** How the request log marks a request a fault was injected into. */
export const injectedFaultSchema = z.object({ id: z.string(), action: apiFaultActionSchema })
export type InjectedFault = z.infer<typeof injectedFaultSchema>
