import { readFile, writeFile } from 'node:fs/promises'
import { readFailure } from '../src/bounded-read.js'
import { jsonFileText } from '../src/json.js'
import { formatFjd } from '../src/money.js'
import { makePrivate } from '../src/private-file.js'
import { MODES } from '../src/schemas/enums.js'
import { INVOICE_ID_COUNTER, MAX_IMPORTED_INVOICE_ID } from './domain/invoice.js'
import {
  parseRecord,
  recordPath,
  type ApiKeyRecord,
  type CounterRecord,
  type InvoiceRecord,
  type MerchantRecord,
  type RecordCollection,
  type WebhookEndpointRecord,
} from './domain/records.js'
import { checkModeObjects, STATE_COLLECTIONS, type ModeObjects, type StateCollection } from './domain/state-consistency.js'
import { COLLECTION_NAMES, type Collections } from './store/collections.js'
import type { Store } from './store/types.js'

/**
 * A readable picture of the whole simulator that a team can keep in git:
 * every collection as a list in creation order (so lists keep their order
 * after an import). API keys stay hashed; mint keys after importing.
 */
export interface StateFile {
  format: 'bula-state'
  version: 1
  collections: Partial<Record<keyof Collections, unknown[]>>
}

export function exportState(store: Store<Collections>): StateFile {
  return {
    format: 'bula-state',
    version: 1,
    collections: Object.fromEntries(COLLECTION_NAMES.map((name) => [name, [...store.values(name)]])),
  }
}

export async function writeStateFile(store: Store<Collections>, file: string): Promise<void> {
  await writeFile(file, `${JSON.stringify(exportState(store), null, 2)}\n`, { mode: 0o600 })
  // It holds every merchant's signing secrets: private also when it replaced an older file.
  await makePrivate(file)
}

/**
 * Reads and checks a state file; the message names the file and what is
 * wrong. `allowedHosts` are the starting simulator's `--allowed-host` names,
 * whose http URLs test mode takes, as its API and a merchant's import do.
 */
export async function readStateFile(file: string, allowedHosts: readonly string[]): Promise<StateFile> {
  let parsed: unknown
  try {
    parsed = JSON.parse(jsonFileText(await readFile(file)))
  } catch (error) {
    // `no such file` and `it is a folder` in words; a file that is not JSON with the parser's message.
    throw new Error(`Cannot read the state file ${file}: ${error instanceof SyntaxError ? error.message : readFailure(error)}.`, { cause: error })
  }
  return checkState(parsed, file, allowedHosts)
}

/**
 * A whole simulator's state file, checked as untrusted input: the envelope,
 * every document against its collection's schema (the store's own), ids
 * unique, API key hashes and hosted-page tokens unique, every object owned
 * by a merchant of the file, and each merchant's objects of each mode as the
 * API leaves them (checkMerchantModes). `source` names the file in the message.
 */
export function checkState(parsed: unknown, source: string, allowedHosts: readonly string[]): StateFile {
  const state = parsed as Partial<StateFile> | null
  if (state?.format !== 'bula-state' || state.version !== 1 || typeof state.collections !== 'object' || state.collections === null) {
    throw new Error(`${source} is not a bula state file of version 1 (expected {"format":"bula-state","version":1,"collections":{...}}).`)
  }
  // `bula state export` writes one merchant's objects with its merchantId: said as such, as `bula state import` says the converse.
  if (typeof (state as { merchantId?: unknown }).merchantId === 'string') {
    throw new Error(`${source} holds one merchant's objects (written by \`bula state export\`), not a whole simulator: load it into a running simulator with \`bula state import ${source}\`.`)
  }
  const unknown = Object.keys(state).find((field) => !['format', 'version', 'collections'].includes(field))
  if (unknown !== undefined) throw new Error(`${source}: unknown field "${unknown}" (a state file holds format, version and collections).`)
  const collections: Partial<Record<RecordCollection, { id: string }[]>> = {}
  try {
    for (const [name, docs] of Object.entries(state.collections)) {
      if (!(COLLECTION_NAMES as readonly string[]).includes(name)) throw new Error(`unknown collection "${name}".`)
      if (!Array.isArray(docs)) throw new Error(`"${name}" must be a list of objects.`)
      const ids = new Set<string>()
      collections[name as RecordCollection] = docs.map((doc, index) => {
        const checked = parseRecord(name as RecordCollection, doc, index)
        if (ids.has(checked.id)) throw new Error(`${recordPath(name, index, 'id')} ${checked.id} appears twice.`)
        ids.add(checked.id)
        return checked
      })
    }
    const merchants = new Set((collections.merchants ?? []).map((merchant) => merchant.id))
    for (const [name, docs] of Object.entries(collections)) {
      docs.forEach((doc, index) => {
        const owner = (doc as { merchantId?: string }).merchantId
        if (owner !== undefined && !merchants.has(owner)) throw new Error(`${recordPath(name, index, 'merchantId')} names no merchant of the file.`)
      })
    }
    // The shared invoice counter moves past the file's ids (replaceState): each must leave it room.
    ;((collections.invoices ?? []) as InvoiceRecord[]).forEach((invoice, index) => {
      if (invoice.invoiceId > MAX_IMPORTED_INVOICE_ID) {
        throw new Error(`${recordPath('invoices', index, 'invoiceId')} is above ${MAX_IMPORTED_INVOICE_ID}, the highest invoice id a state file may hold.`)
      }
    })
    ;((collections.counters ?? []) as CounterRecord[]).forEach((counter, index) => {
      if (counter.id === INVOICE_ID_COUNTER && counter.last > MAX_IMPORTED_INVOICE_ID) {
        throw new Error(`${recordPath('counters', index, 'last')} is above ${MAX_IMPORTED_INVOICE_ID}, the highest invoice id a state file may hold.`)
      }
    })
    for (const [name, field] of [['apiKeys', 'hash'], ['invoices', 'pageToken']] as const) {
      const seen = new Set<string>()
      ;(collections[name] ?? []).forEach((doc, index) => {
        const value = (doc as Record<string, string>)[field]!
        if (seen.has(value)) throw new Error(`${recordPath(name, index, field)} is used twice.`)
        seen.add(value)
      })
    }
    checkMerchantModes(collections, allowedHosts)
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`, { cause: error })
  }
  return { format: 'bula-state', version: 1, collections }
}

/**
 * Each merchant's objects of each mode held to the rules of its own import
 * (`POST /_sim/state/import`): references, payments, status stamps and times
 * (checkModeObjects); and its balance in that mode what those payments
 * earned and no Payout swept, which a merchant's import sets and a whole
 * file states. A refusal names the file's own index of the bad value.
 */
function checkMerchantModes(collections: Partial<Record<RecordCollection, { id: string }[]>>, allowedHosts: readonly string[]): void {
  const groups = new Map<string, { docs: ModeObjects; places: Record<StateCollection, number[]> }>()
  const groupOf = (merchantId: string, mode: string) => {
    const key = `${merchantId} ${mode}`
    let group = groups.get(key)
    if (!group) {
      group = {
        docs: Object.fromEntries(STATE_COLLECTIONS.map((name) => [name, [] as ModeObjects[typeof name]])) as ModeObjects,
        places: Object.fromEntries(STATE_COLLECTIONS.map((name) => [name, [] as number[]])) as Record<StateCollection, number[]>,
      }
      groups.set(key, group)
    }
    return group
  }
  for (const name of STATE_COLLECTIONS) {
    ;(collections[name] ?? []).forEach((doc, index) => {
      const { merchantId, mode } = doc as ModeObjects[typeof name][number]
      const group = groupOf(merchantId, mode)
      ;(group.docs[name] as unknown[]).push(doc)
      group.places[name].push(index)
    })
  }
  const invoices = new Map(((collections.invoices ?? []) as InvoiceRecord[]).map((invoice) => [invoice.pageToken, invoice]))
  const endpoints = new Map((collections.webhookEndpoints ?? []).map((endpoint) => [endpoint.id, endpoint as WebhookEndpointRecord]))
  ;((collections.merchants ?? []) as MerchantRecord[]).forEach((merchant, k) => {
    if (!merchant.liveUnlocked) refuseAnythingLive(merchant, k, groupOf(merchant.id, 'live').places, (collections.apiKeys ?? []) as ApiKeyRecord[])
    for (const mode of MODES) {
      const { docs, places } = groupOf(merchant.id, mode)
      const balance = checkModeObjects(docs, {
        merchant,
        mode,
        allowedHosts,
        invoiceWithPageToken: (token) => invoices.get(token),
        webhookEndpoint: (id) => endpoints.get(id),
        place: (name, index) => places[name][index]!,
      })
      if (merchant.balances[mode] !== balance) {
        throw new Error(
          `${recordPath('merchants', k, `balances.${mode}`)} is ${formatFjd(merchant.balances[mode])}, but the merchant's ${mode} payments ` +
            `earned ${formatFjd(balance)} that no Payout swept.`,
        )
      }
    }
  })
}

/**
 * A merchant whose live payments were never unlocked (verification approves
 * them) has no live key, so it has made nothing live and cannot have live
 * Providers on. A merchant's own import is held to this by the key it needs;
 * a whole file names the merchant's state outright.
 */
function refuseAnythingLive(merchant: MerchantRecord, k: number, livePlaces: Record<StateCollection, number[]>, apiKeys: ApiKeyRecord[]): void {
  const why = `but the merchant's live payments were never unlocked (${recordPath('merchants', k, 'liveUnlocked')} is false: verification approves them).`
  if (merchant.settings.liveProviders) throw new Error(`${recordPath('merchants', k, 'settings.liveProviders')} is true, ${why}`)
  for (const name of STATE_COLLECTIONS) {
    const first = livePlaces[name][0]
    if (first !== undefined) throw new Error(`${recordPath(name, first, 'mode')} is live, ${why}`)
  }
  const key = apiKeys.findIndex((apiKey) => apiKey.merchantId === merchant.id && apiKey.mode === 'live')
  if (key >= 0) throw new Error(`${recordPath('apiKeys', key, 'mode')} is live, ${why}`)
}

/**
 * Replaces everything in the store with the state's objects, in their order.
 * The invoice counter ends past every imported id, whatever the file said of
 * it: a new Invoice must never take an imported one's id.
 */
export function replaceState(store: Store<Collections>, state: StateFile): void {
  for (const name of COLLECTION_NAMES) {
    for (const doc of [...store.values(name)]) store.delete(name, doc.id)
    for (const doc of state.collections[name] ?? []) store.put(name, doc as Collections[typeof name])
  }
  const highest = Math.max(0, ...[...store.values('invoices')].map((invoice) => invoice.invoiceId))
  if (highest > (store.get('counters', INVOICE_ID_COUNTER)?.last ?? 0)) store.put('counters', { id: INVOICE_ID_COUNTER, last: highest })
}
