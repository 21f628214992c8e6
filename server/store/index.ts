export * from './types.js'
export { DEFAULT_JOURNAL_THRESHOLD_BYTES, openStore, type StoreTestHooks } from './open-store.js'
