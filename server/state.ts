import { readFile, writeFile } from 'node:fs/promises'
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
}

/** Reads and checks a state file; the message names the file and what is wrong. */
export async function readStateFile(file: string): Promise<StateFile> {
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    throw new Error(`Cannot read the state file ${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return checkState(parsed, file)
}

/** The shape every state file has; `source` names it in the message. */
export function checkState(parsed: unknown, source: string): StateFile {
  const state = parsed as Partial<StateFile> | null
  if (state?.format !== 'bula-state' || state.version !== 1 || typeof state.collections !== 'object' || state.collections === null) {
    throw new Error(`${source} is not a bula state file of version 1 (expected {"format":"bula-state","version":1,"collections":{...}}).`)
  }
  for (const [name, docs] of Object.entries(state.collections)) {
    if (!(COLLECTION_NAMES as readonly string[]).includes(name)) throw new Error(`${source}: unknown collection "${name}".`)
    if (!Array.isArray(docs) || docs.some((doc) => typeof (doc as { id?: unknown })?.id !== 'string')) {
      throw new Error(`${source}: "${name}" must be a list of objects with a string id.`)
    }
  }
  return state as StateFile
}

/** Replaces everything in the store with the state's objects, in their order. */
export function replaceState(store: Store<Collections>, state: StateFile): void {
  for (const name of COLLECTION_NAMES) {
    for (const doc of [...store.values(name)]) store.delete(name, doc.id)
    for (const doc of state.collections[name] ?? []) store.put(name, doc as Collections[typeof name])
  }
}
