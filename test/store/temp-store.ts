import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { openStore, type IndexSpec, type OpenStoreOptions, type StoreTestHooks } from '../../server/store/index.js'
import { journalContentOf } from '../../server/store/journal-file.js'
import { tempFolder } from '../helpers/temp.js'

export interface Payment {
  id: string
  merchant: string
  status: string
  reference: string
}

export interface Note {
  id: string
  text: string
}

export type TestSchema = { payments: Payment; notes: Note }

export const TEST_INDEXES: IndexSpec<TestSchema> = {
  unique: { payments: { byReference: (payment) => payment.reference } },
  groups: { payments: { byMerchant: (payment) => payment.merchant, byStatus: (payment) => payment.status } },
}

export const payment = (id: string, merchant = 'm1', status = 'open'): Payment => ({ id, merchant, status, reference: `ref-${id}` })

export async function tempDataFile(): Promise<string> {
  return path.join(await tempFolder('bula-store-'), 'data.json')
}

export function openTestStore(file: string | undefined, options: Partial<OpenStoreOptions<TestSchema>> = {}, hooks: StoreTestHooks = {}) {
  return openStore<TestSchema>({ file, collections: ['payments', 'notes'], indexes: TEST_INDEXES, ...options }, hooks)
}

/** Every file of the folder with its bytes and mode (a folder in it, bytes null): refusals must leave this exactly as it was. */
export async function folderState(folder: string): Promise<Record<string, { bytes: string | null; mode: number }>> {
  const state: Record<string, { bytes: string | null; mode: number }> = {}
  for (const name of (await readdir(folder)).sort()) {
    const file = path.join(folder, name)
    const info = await stat(file)
    state[name] = { bytes: info.isDirectory() ? null : (await readFile(file)).toString('base64'), mode: info.mode }
  }
  return state
}

/** The journal's text: its file without the zeros that end it (server/store/journal-file.ts, JOURNAL_EXTENT_BYTES). */
export async function journalText(file: string): Promise<string> {
  return journalContentOf(await readFile(`${file}.journal`)).toString('utf8')
}

export async function journalLines(file: string): Promise<string[]> {
  return (await journalText(file)).split('\n').filter((line) => line !== '')
}
