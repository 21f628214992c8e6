import { readFile, writeFile } from 'node:fs/promises'
import { makePrivate } from '../src/private-file.js'
import { INVOICE_ID_COUNTER, MAX_IMPORTED_INVOICE_ID } from './domain/invoice.js'
import { parseRecord, recordPath, type CounterRecord, type InvoiceRecord, type RecordCollection } from './domain/records.js'
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

/** Reads and checks a state file; the message names the file and what is wrong. */
export async function readStateFile(file: string): Promise<StateFile> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new Error(`Cannot read the state file ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
  return checkState(parsed, file)
}

/**
 * A whole simulator's state file, checked as untrusted input: the envelope,
 * every document against its collection's schema (the store's own), ids
 * unique, API key hashes and hosted-page tokens unique, and every object
 * owned by a merchant of the file. `source` names the file in the message.
 */
export function checkState(parsed: unknown, source: string): StateFile {
  const state = parsed as Partial<StateFile> | null
  if (state?.format !== 'bula-state' || state.version !== 1 || typeof state.collections !== 'object' || state.collections === null) {
    throw new Error(`${source} is not a bula state file of version 1 (expected {"format":"bula-state","version":1,"collections":{...}}).`)
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
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message}`, { cause: error })
  }
  return { format: 'bula-state', version: 1, collections }
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
