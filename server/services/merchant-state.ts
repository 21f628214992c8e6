import { isDeepStrictEqual } from 'node:util'
import { z } from 'zod'
import { ApiError, invalidRequest } from '../../src/errors.js'
import { MAX_ADVANCE_MS } from '../../src/schemas/clock.js'
import type { Mode } from '../../src/schemas/index.js'
import type { Caller, ServiceContext } from '../context.js'
import { INVOICE_ID_COUNTER } from '../domain/invoice.js'
import { requireLiveKey, type MerchantRecord } from '../domain/merchant.js'
import { afterTheClock, checkModeObjects, STATE_COLLECTIONS, type ModeObjects, type StateCollection } from '../domain/state-consistency.js'
import {
  idOf,
  merchantRecordSchema,
  merchantSettingsRecordSchema,
  nextPayoutFailureSchema,
  parseAt,
  parseRecord,
  quoteRatesRecordSchema,
  recordPath,
  webhookFaultsRecordSchema,
} from '../domain/records.js'
import { INDEXES, merchantModeGroup, type Collections } from '../store/collections.js'
import { scheduleSessionJobs } from './checkout-sessions.js'
import { DELIVER_JOB, JOB_TARGETS, jobTarget, scheduleTargetedJob } from '../clock/targeted-jobs.js'
import { schedulePayoutJobs, scheduleSettlement } from './payouts.js'
import { LIVE_MONEY_SETTINGS } from './settings.js'

/** What the simulator keeps to itself, with the reason an import that carries it is refused. */
const NOT_IN_A_STATE_FILE: Readonly<Record<string, string>> = {
  apiKeys: 'API keys are never in a state file: the merchant keeps the keys it has.',
  jobs: 'Scheduled jobs are not imported: expiry, delivery retries and payouts are planned again from the objects.',
  idempotency: 'Idempotency records are not imported: a state file is a picture of objects, not of retries in flight.',
  counters: 'Counters belong to the whole simulator, not to one merchant.',
}

const settingsShape = merchantSettingsRecordSchema.shape

/**
 * What a state file says of the merchant itself, in its mode. Identity,
 * tier, verification and keys are never in it, and the balance follows
 * from the file's payments and Payouts. Quote rates are test mode's; the
 * payout fault is live mode's.
 */
const merchantPartSchema = z.strictObject({
  id: idOf('ms'),
  clockOffsetMs: merchantRecordSchema.shape.clockOffsetMs,
  settings: z.strictObject({
    displayName: settingsShape.displayName,
    vatNumber: settingsShape.vatNumber,
    invoicePrefix: settingsShape.invoicePrefix,
    invoiceNextNumber: settingsShape.invoiceNextNumber.shape.test,
    invoiceLastNumber: settingsShape.invoiceLastNumber.shape.test,
    receiptsEnabled: settingsShape.receiptsEnabled,
    payoutSchedule: settingsShape.payoutSchedule,
    payoutDestination: settingsShape.payoutDestination,
    liveProviders: settingsShape.liveProviders,
  }),
  webhookFaults: webhookFaultsRecordSchema,
  quoteRates: quoteRatesRecordSchema.optional(),
  nextPayoutFailure: nextPayoutFailureSchema.optional(),
})
type MerchantPart = z.infer<typeof merchantPartSchema>

export interface MerchantStateFile {
  format: 'bula-state'
  version: 1
  merchantId: string
  mode: Mode
  collections: { merchants: [MerchantPart] } & ModeObjects
}

const merchantOf = (ctx: ServiceContext, caller: Caller): MerchantRecord => ctx.store.get('merchants', caller.merchant.id)!

function merchantPart(merchant: MerchantRecord, mode: Mode): MerchantPart {
  const { settings } = merchant
  return {
    id: merchant.id,
    clockOffsetMs: merchant.clockOffsetMs,
    settings: {
      displayName: settings.displayName,
      vatNumber: settings.vatNumber ?? null,
      invoicePrefix: settings.invoicePrefix,
      invoiceNextNumber: settings.invoiceNextNumber[mode],
      invoiceLastNumber: settings.invoiceLastNumber[mode],
      receiptsEnabled: settings.receiptsEnabled,
      payoutSchedule: settings.payoutSchedule,
      payoutDestination: settings.payoutDestination,
      liveProviders: settings.liveProviders,
    },
    webhookFaults: merchant.webhookFaults[mode],
    ...(mode === 'test' ? { quoteRates: merchant.quoteRates } : { nextPayoutFailure: merchant.nextPayoutFailure }),
  }
}

/**
 * The ids of the merchant's documents of one mode in a collection, in
 * creation order. A collection listed per merchant and mode is read through
 * that group: an export, reset or import runs in one turn of the event loop,
 * and walking every merchant's documents there (parsing each Checkout
 * Session left unparsed) held the whole simulator 230–310 ms for a merchant
 * of five sessions beside another's 100,000 (docs/performance.md). Payment
 * intents and deliveries have no such group and are kept parsed in memory,
 * so a walk of them is cheap.
 */
function idsOfMerchantMode(ctx: ServiceContext, name: StateCollection, merchantId: string, mode: Mode): string[] {
  if (INDEXES.groups?.[name]?.byMerchantMode) return [...ctx.store.group(name, 'byMerchantMode', merchantModeGroup(merchantId, mode))]
  return [...ctx.store.values(name)].filter((doc) => doc.merchantId === merchantId && doc.mode === mode).map((doc) => doc.id)
}

/** `GET /_sim/state`: the merchant and its objects of the key's mode (`bula state export`). */
export function exportMerchantState(ctx: ServiceContext, caller: Caller): MerchantStateFile {
  const merchant = merchantOf(ctx, caller)
  const { mode } = caller
  const docs = Object.fromEntries(
    STATE_COLLECTIONS.map((name) => [name, idsOfMerchantMode(ctx, name, merchant.id, mode).map((id) => ctx.store.get(name, id)!)]),
  ) as ModeObjects
  return { format: 'bula-state', version: 1, merchantId: merchant.id, mode, collections: { merchants: [merchantPart(merchant, mode)], ...docs } }
}

/** Deletes the merchant's objects of one mode, and the jobs that acted on them; its keys and the other mode stay. */
function clearMode(ctx: ServiceContext, merchantId: string, mode: Mode): void {
  const replaced = `${merchantId}:${mode}`
  ctx.stateReplacements.set(replaced, (ctx.stateReplacements.get(replaced) ?? 0) + 1)
  for (const name of STATE_COLLECTIONS) {
    // By id: the delete reads what it needs of a document, once.
    for (const id of idsOfMerchantMode(ctx, name, merchantId, mode)) ctx.store.delete(name, id)
  }
  // By their group: reading every record would parse those start-up left unparsed.
  for (const id of [...ctx.store.group('idempotency', 'byMerchantMode', merchantModeGroup(merchantId, mode))]) ctx.store.delete('idempotency', id)
  for (const job of [...ctx.store.values('jobs')]) {
    if (job.merchantId === merchantId && job.kind in JOB_TARGETS && jobTarget(ctx, job) === undefined) ctx.store.delete('jobs', job.id)
  }
}

/**
 * `POST /_sim/state/reset`: the key's mode back to a merchant that just
 * signed up. Identity, keys, settings, verification, the clock (which never
 * goes back) and the other mode's objects stay.
 */
export function resetMerchantState(ctx: ServiceContext, caller: Caller): { merchantId: string; mode: Mode; reset: true } {
  const { id } = caller.merchant
  const { mode } = caller
  clearMode(ctx, id, mode)
  const merchant = ctx.store.get('merchants', id)!
  ctx.store.put('merchants', {
    ...merchant,
    balances: { ...merchant.balances, [mode]: 0 },
    webhookFaults: { ...merchant.webhookFaults, [mode]: null },
    nextPayoutFailure: mode === 'live' ? null : merchant.nextPayoutFailure,
  })
  scheduleSettlement(ctx, id)
  ctx.clock.reload()
  return { merchantId: id, mode, reset: true }
}

/** A checked state file, ready to apply. */
interface ImportPlan {
  part: MerchantPart
  docs: ModeObjects
  /** The mode's balance: what the succeeded payments earned and no Payout swept. */
  balance: number
}

const objectOrNull = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null

/**
 * Each document of each collection against the store's schema, all of the
 * caller's merchant and mode, ids unique here and in the simulator.
 * `parsed` holds each list's documents as parseImportDocuments checked them,
 * up to the first that failed, whose refusal is thrown here, in this order.
 */
function checkDocuments(ctx: ServiceContext, caller: Caller, collections: Record<string, unknown>, parsed: ParsedDocuments): ModeObjects {
  const { id: merchantId } = caller.merchant
  const { mode } = caller
  const docs = {} as Record<StateCollection, { id: string; merchantId: string; mode: Mode }[]>
  for (const name of STATE_COLLECTIONS) {
    const list = collections[name] ?? []
    if (!Array.isArray(list)) throw invalidRequest(`\`${name}\` must be a list of objects.`, name)
    const seen = new Set<string>()
    // Ids the merchant holds in this mode need no read: reading each stored session would parse it.
    const own = new Set(idsOfMerchantMode(ctx, name, merchantId, mode))
    docs[name] = list.map((_raw, index) => {
      const doc = parsed[name]![index]!
      if (doc instanceof ApiError) throw doc
      if (doc.merchantId !== merchantId) throw invalidRequest(`${recordPath(name, index)} belongs to another merchant.`, recordPath(name, index, 'merchantId'))
      if (doc.mode !== mode) {
        throw invalidRequest(`${recordPath(name, index)} is a ${doc.mode} object: only a ${doc.mode} key imports ${doc.mode} objects.`, recordPath(name, index, 'mode'))
      }
      const existing = own.has(doc.id) ? undefined : ctx.store.get(name, doc.id)
      if (seen.has(doc.id) || (existing && (existing.merchantId !== merchantId || existing.mode !== mode))) {
        throw invalidRequest(`${recordPath(name, index, 'id')} ${doc.id} already names another object.`, recordPath(name, index, 'id'))
      }
      seen.add(doc.id)
      return doc
    })
  }
  return docs as unknown as ModeObjects
}

/** The whole file checked before anything changes: a refusal is a 400 naming the path of the first bad value. */
function checkImport(ctx: ServiceContext, caller: Caller, body: unknown, parsed: ParsedDocuments): ImportPlan {
  const merchant = merchantOf(ctx, caller)
  const { mode } = caller
  const file = objectOrNull(body)
  if (!file || file.format !== 'bula-state' || file.version !== 1) {
    throw invalidRequest('The body must be a state file of version 1, as `GET /_sim/state` (`bula state export`) writes.', file ? 'format' : undefined)
  }
  if (file.merchantId !== undefined && file.merchantId !== merchant.id) {
    throw invalidRequest(
      `The file holds merchant ${String(file.merchantId)}; import only what this merchant (${merchant.id}) exported. ` +
        'To start another simulator with that merchant, write the whole simulator with `bula serve --export-on-exit FILE` ' +
        'and start the other one with `bula serve --import FILE`.',
      'merchantId',
    )
  }
  if (file.mode !== undefined && file.mode !== mode) {
    throw invalidRequest(`The file holds ${String(file.mode)} objects; only a ${String(file.mode)} key imports them.`, 'mode')
  }
  const collections = objectOrNull(file.collections)
  if (!collections) throw invalidRequest('`collections` must be an object of lists.', 'collections')
  for (const name of Object.keys(collections)) {
    // Own keys only: `constructor` or `toString` is an unknown collection, not a property of every object.
    if (Object.hasOwn(NOT_IN_A_STATE_FILE, name)) throw invalidRequest(NOT_IN_A_STATE_FILE[name]!, name)
    if (name !== 'merchants' && !(STATE_COLLECTIONS as readonly string[]).includes(name)) throw invalidRequest(`Unknown collection \`${name}\`.`, name)
  }
  const merchants = collections.merchants
  if (!Array.isArray(merchants) || merchants.length !== 1) throw invalidRequest('`merchants` must hold exactly this merchant.', 'merchants')
  const part = parseAt(merchantPartSchema, merchants[0], 'merchants[0]')
  if (part.id !== merchant.id) throw invalidRequest(`merchants[0] is ${part.id}; import only what this merchant (${merchant.id}) exported.`, 'merchants[0].id')
  if (mode === 'live' && part.quoteRates !== undefined) throw invalidRequest('Quote rates are test mode\'s: import them with a test key.', 'merchants[0].quoteRates')
  if (mode === 'test' && part.nextPayoutFailure !== undefined) {
    throw invalidRequest('The payout fault is live mode\'s: import it with a live key.', 'merchants[0].nextPayoutFailure')
  }
  if (part.clockOffsetMs > merchant.clockOffsetMs + MAX_ADVANCE_MS) {
    throw invalidRequest(`The clock may move at most one advance (${MAX_ADVANCE_MS} ms) ahead of where it is.`, 'merchants[0].clockOffsetMs')
  }
  // The clock only moves on, also through an import (applyImport).
  const wallNow = ctx.clock.wallNow()
  const clockNow = wallNow + Math.max(merchant.clockOffsetMs, part.clockOffsetMs)
  // A rate is stamped with the clock when it is set (updateRates), and a quote takes the stamp with the rate.
  for (const [currency, { asOf }] of Object.entries(part.quoteRates ?? {})) {
    const at = `merchants[0].quoteRates.${currency}.asOf`
    if (asOf > clockNow) throw invalidRequest(`${at} ${afterTheClock(clockNow)}`, at)
  }
  for (const field of LIVE_MONEY_SETTINGS) {
    if (!isDeepStrictEqual(part.settings[field], merchant.settings[field])) {
      requireLiveKey(merchant, mode, `Changing ${field}`, `merchants[0].settings.${field}`)
    }
  }
  if (part.settings.liveProviders && !merchant.liveUnlocked) {
    throw invalidRequest('Live Providers can be switched on once verification is approved.', 'merchants[0].settings.liveProviders')
  }
  if (part.settings.invoiceNextNumber <= part.settings.invoiceLastNumber) {
    throw invalidRequest('invoiceNextNumber must be greater than invoiceLastNumber: numbers are never reused.', 'merchants[0].settings.invoiceNextNumber')
  }
  const docs = checkDocuments(ctx, caller, collections, parsed)
  const balance = checkModeObjects(docs, {
    merchant,
    mode,
    allowedHosts: ctx.allowedHosts,
    invoiceWithPageToken: (token) => ctx.store.lookup('invoices', 'byPageToken', token),
    webhookEndpoint: (id) => ctx.store.get('webhookEndpoints', id),
    place: (_name, index) => index,
    clockNow,
    wallNow,
  })
  return { part, docs, balance }
}

/** Documents checked against the store's schemas per turn of the event loop: about 10 ms of a large import's. */
const PARSE_SLICE_DOCUMENTS = 1_000

/** Each collection's documents as parseRecord made them, up to and with the refusal of the first that failed. */
type ParsedDocuments = Partial<Record<StateCollection, (Collections[StateCollection] | ApiError)[]>>

/**
 * Every document of the file against its collection's schema, a slice per
 * turn of the event loop, before anything is decided: a schema knows
 * nothing of the store, so this part of the check need not hold the other
 * merchants' requests. Checking 27,000 sessions at once was about 150 ms of
 * the simulator's only thread (docs/performance.md). A list that is not a
 * list is left to checkDocuments, which refuses it in its turn.
 */
async function parseImportDocuments(body: unknown): Promise<ParsedDocuments> {
  const collections = objectOrNull(objectOrNull(body)?.collections) ?? {}
  const parsed: ParsedDocuments = {}
  let checked = 0
  for (const name of STATE_COLLECTIONS) {
    const list = collections[name]
    if (!Array.isArray(list)) continue
    const docs: (Collections[StateCollection] | ApiError)[] = (parsed[name] = [])
    for (const [index, raw] of list.entries()) {
      try {
        docs.push(parseRecord(name, raw, index))
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        docs.push(error)
        break
      }
      if (++checked % PARSE_SLICE_DOCUMENTS === 0) await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return parsed
}

/**
 * `POST /_sim/state/import`: replaces the merchant's objects of the key's
 * mode with a state file's. The file is checked whole first (every document
 * against the store's schema, every reference within this merchant and
 * mode); then the change is made in one synchronous step, which the store
 * writes as one journal line: all of it or none, even through a crash. It
 * waits for an advance of the merchant's clock to finish (ClockService.exclusive).
 */
export async function importMerchantState(ctx: ServiceContext, caller: Caller, body: unknown): Promise<{ merchantId: string; mode: Mode; imported: number }> {
  const parsed = await parseImportDocuments(body)
  return ctx.clock.exclusive(caller.merchant.id, () => applyImport(ctx, caller, body, parsed))
}

function applyImport(ctx: ServiceContext, caller: Caller, body: unknown, parsed: ParsedDocuments): { merchantId: string; mode: Mode; imported: number } {
  const { part, docs, balance } = checkImport(ctx, caller, body, parsed)
  const { id } = caller.merchant
  const { mode } = caller
  const clockBefore = ctx.clock.now(id)
  clearMode(ctx, id, mode)
  let imported = 0
  for (const name of STATE_COLLECTIONS) {
    for (const doc of docs[name]) {
      ctx.store.put(name, doc)
      imported++
    }
  }
  const merchant = ctx.store.get('merchants', id)!
  const lastNumber = Math.max(merchant.settings.invoiceLastNumber[mode], part.settings.invoiceLastNumber)
  const { invoiceNextNumber, invoiceLastNumber: _last, ...shared } = part.settings
  ctx.store.put('merchants', {
    ...merchant,
    // The clock never goes back, also through an import.
    clockOffsetMs: Math.max(merchant.clockOffsetMs, part.clockOffsetMs),
    balances: { ...merchant.balances, [mode]: balance },
    settings: {
      ...merchant.settings,
      ...shared,
      // Numbers issued before the import stay used: the counter only moves on.
      invoiceNextNumber: { ...merchant.settings.invoiceNextNumber, [mode]: Math.max(invoiceNextNumber, lastNumber + 1) },
      invoiceLastNumber: { ...merchant.settings.invoiceLastNumber, [mode]: lastNumber },
    },
    webhookFaults: { ...merchant.webhookFaults, [mode]: part.webhookFaults },
    quoteRates: part.quoteRates ?? merchant.quoteRates,
    nextPayoutFailure: part.nextPayoutFailure === undefined ? merchant.nextPayoutFailure : part.nextPayoutFailure,
  })
  // Not Math.max(...ids): a file may hold more invoices than a call takes arguments.
  const highestInvoice = docs.invoices.reduce((highest, invoice) => Math.max(highest, invoice.invoiceId), 0)
  if (highestInvoice > (ctx.store.get('counters', INVOICE_ID_COUNTER)?.last ?? 0)) ctx.store.put('counters', { id: INVOICE_ID_COUNTER, last: highestInvoice })
  // What waits on the clock follows from the objects, so no imported job can name someone else's.
  for (const session of docs.checkoutSessions) scheduleSessionJobs(ctx, session)
  for (const payout of docs.payouts) schedulePayoutJobs(ctx, payout)
  for (const delivery of docs.deliveries) {
    // Every pending delivery has its try queued: a file's without a time (made by hand) gets one now, as start-up
    // gives one to a delivery whose try was cut short (requeueCutAttempts); an attempt out meanwhile records nothing.
    if (delivery.status === 'pending') scheduleTargetedJob(ctx, DELIVER_JOB, delivery, delivery.nextAttemptAt ?? ctx.clock.now(id))
  }
  // A file whose clock is ahead moves the merchant's on, past settlement runs it never made: they run now, as an
  // advance would run them, planned from the later of the clock before and the file's last payment or Payout, so
  // that no run sweeps a payment dated after it. They used to be skipped, both modes' (the runs are the merchant's).
  let lastMoneyAt = 0
  for (const session of docs.checkoutSessions) if (session.status === 'succeeded') lastMoneyAt = Math.max(lastMoneyAt, session.endedAt ?? 0)
  for (const payout of docs.payouts) lastMoneyAt = Math.max(lastMoneyAt, payout.createdAt)
  scheduleSettlement(ctx, id, Math.max(clockBefore, lastMoneyAt))
  ctx.clock.reload()
  return { merchantId: id, mode, imported }
}
