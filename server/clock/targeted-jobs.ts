import type { Mode } from '../../src/schemas/index.js'
import type { JobRecord } from '../domain/records.js'
import type { Collections } from '../store/collections.js'
import type { Store } from '../store/types.js'
import type { ClockService, JobReport } from './clock-service.js'

/** The store and the clock: what scheduling and checking a targeted job needs (a ServiceContext has both). */
interface JobDeps {
  store: Store<Collections>
  clock: ClockService
}

/** Derived jobs (ClockService.derive): they follow from a Checkout Session's fields, so no job document names a session. */
export const EXPIRE_JOB = 'checkout_session.expire'
export const PURGE_EMAIL_JOB = 'checkout_session.purge_email'
export const DISBURSEMENT_JOB = 'disbursement.run'
export const TRANSFER_JOB = 'disbursement.complete'
export const DELIVER_JOB = 'webhook.deliver'

/** The collections whose objects a job can act on. */
export type JobTargetCollection = 'payouts' | 'deliveries'
type Target<C extends JobTargetCollection> = Collections[C]

/**
 * The object each job kind acts on, named by a payload field. A settlement
 * run has none: it acts on its merchant as a whole.
 */
export const JOB_TARGETS: Readonly<Record<string, { collection: JobTargetCollection; field: string }>> = {
  [DISBURSEMENT_JOB]: { collection: 'payouts', field: 'payoutId' },
  [TRANSFER_JOB]: { collection: 'payouts', field: 'payoutId' },
  [DELIVER_JOB]: { collection: 'deliveries', field: 'deliveryId' },
}

/**
 * Schedules a job on `target`, recording the target's mode beside its id so
 * that the job can check, when it runs, that it still acts within one
 * merchant and one mode.
 */
export function scheduleTargetedJob(
  ctx: JobDeps,
  kind: keyof typeof JOB_TARGETS,
  target: { id: string; merchantId: string; mode: Mode },
  dueAt: number,
): JobRecord {
  const { field } = JOB_TARGETS[kind]!
  return ctx.clock.schedule(target.merchantId, kind, dueAt, { [field]: target.id, mode: target.mode })
}

/**
 * The object a job acts on, if it is one of the job's own merchant and of
 * the mode the job was made for (jobs scheduled before the mode was
 * recorded name none); undefined for a stale or forged job.
 */
export function jobTarget(ctx: JobDeps, job: JobRecord): Target<JobTargetCollection> | undefined {
  const spec = JOB_TARGETS[job.kind]
  if (!spec) return undefined
  const target = ctx.store.get(spec.collection, String(job.payload[spec.field]))
  if (!target || target.merchantId !== job.merchantId) return undefined
  if (job.payload.mode !== undefined && job.payload.mode !== target.mode) return undefined
  return target
}

/**
 * Registers the handler of a job kind that acts on one object. Whatever is
 * in the store (an import, an old data file), the handler only ever sees a
 * target of the job's own merchant and mode; anything else is skipped
 * (docs/security.md, "Scheduled jobs").
 */
export function registerTargetedJob<C extends JobTargetCollection>(
  ctx: JobDeps,
  kind: keyof typeof JOB_TARGETS,
  handler: (target: Target<C>, job: JobRecord) => string | void | Promise<string | void>,
  options: { awaitsNetwork?: boolean } = {},
): void {
  ctx.clock.register(kind, (job) => {
    const target = jobTarget(ctx, job)
    if (target === undefined) return
    // What it did is reported in its target's mode: a key of the other mode never sees it.
    const report = (description: string | void): JobReport | undefined => (description ? { mode: target.mode, description } : undefined)
    const result = handler(target as Target<C>, job)
    return typeof result === 'object' ? result.then(report) : report(result)
  }, options)
}
