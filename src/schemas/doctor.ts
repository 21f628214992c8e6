import { z } from 'zod'
import { integerQuerySchema, modeSchema, timestampSchema } from './common.js'
import { DOCTOR_SEVERITIES } from './enums.js'

export const doctorQuerySchema = z.strictObject({
  /** Look back this many ms on the merchant's clock; without it, everything the simulator still has. */
  sinceMs: integerQuerySchema('sinceMs', { min: 1 }).optional(),
})
export type DoctorQuery = z.infer<typeof doctorQuerySchema>

export const doctorSeveritySchema = z.enum(DOCTOR_SEVERITIES)
export type DoctorSeverity = z.infer<typeof doctorSeveritySchema>

/** One thing that happened, as the finding's proof: when, which request, event or object, and what it shows. */
export const doctorEvidenceSchema = z.object({
  /** Merchant-clock time. */
  at: timestampSchema.nullable(),
  requestId: z.string().nullable(),
  eventId: z.string().nullable(),
  /** The object it is about: a Checkout Session, an Invoice, a webhook endpoint. */
  objectId: z.string().nullable(),
  note: z.string(),
})
export type DoctorEvidence = z.infer<typeof doctorEvidenceSchema>

export const doctorFindingSchema = z.object({
  /** The check that found it, e.g. `create-retried-with-new-key`. */
  check: z.string(),
  severity: doctorSeveritySchema,
  title: z.string(),
  /** The rule of a sound integration that was broken. */
  rule: z.string(),
  evidence: z.array(doctorEvidenceSchema),
  fix: z.string(),
})
export type DoctorFinding = z.infer<typeof doctorFindingSchema>

/**
 * `GET /_sim/doctor`: what the merchant's own traffic of the key's mode says
 * about their integration (docs/faults-and-doctor.md). Errors first.
 */
export const doctorReportSchema = z.object({
  mode: modeSchema,
  /** The merchant's clock when the report was made. */
  now: timestampSchema,
  /** The start of the window looked at; null for everything the simulator still has. */
  since: timestampSchema.nullable(),
  /**
   * How much was read: the integration's requests (of the request log's last 1000 calls at most), events, deliveries,
   * and the Checkout Sessions those requests created, of the window.
   */
  checked: z.object({
    requests: z.number().int(),
    /** Calls the bula CLI itself made in the window: shown in the request log, left out of the checks. */
    bulaCliRequests: z.number().int(),
    events: z.number().int(),
    deliveries: z.number().int(),
    checkoutSessions: z.number().int(),
    webhookEndpoints: z.number().int(),
  }),
  findings: z.array(doctorFindingSchema),
  errors: z.number().int(),
  warnings: z.number().int(),
})
export type DoctorReport = z.infer<typeof doctorReportSchema>
