import { ApiError } from '../../src/errors.js'

/**
 * The repository interface every service uses. Only server/store/ knows how
 * documents reach the disk (and only it imports lowdb).
 *
 * Rules for callers:
 * - Documents are plain JSON values with a string `id`; treat what `get`
 *   returns as read-only and `put` a new object to change it.
 * - A request makes all of its changes synchronously (no `await` between two
 *   `put`s of one change), then awaits `commit()` before answering. Changes
 *   made in one turn of the event loop are written in one journal line, so a
 *   crash keeps all of them or none.
 */
export interface Doc {
  readonly id: string
}

export type Schema = Record<string, Doc>

export type KeyFn<D> = (doc: D) => string

export interface IndexSpec<S extends Schema> {
  /** One document per key, e.g. API keys by the hash of their plaintext. */
  unique?: { [C in keyof S]?: Record<string, KeyFn<S[C]>> }
  /** Documents grouped by a key, kept in insertion order (oldest first). */
  groups?: { [C in keyof S]?: Record<string, KeyFn<S[C]>> }
}

export interface Store<S extends Schema> {
  get<C extends keyof S & string>(collection: C, id: string): S[C] | undefined
  values<C extends keyof S & string>(collection: C): IterableIterator<S[C]>
  size<C extends keyof S & string>(collection: C): number
  lookup<C extends keyof S & string>(collection: C, index: string, key: string): S[C] | undefined
  /** Ids in the group, oldest insertion first. The array must not be modified. */
  group<C extends keyof S & string>(collection: C, index: string, key: string): readonly string[]
  /**
   * `json`, when given, must be exactly `JSON.stringify(doc)`: a caller that
   * has most of the text already (an Idempotency-Key record holds the answer
   * it sent) saves serializing it again.
   */
  put<C extends keyof S & string>(collection: C, doc: S[C], json?: string): void
  delete<C extends keyof S & string>(collection: C, id: string): void
  /**
   * Resolves once every change made before the call is on disk (an O_DSYNC
   * write, or write + fdatasync); concurrent callers share one write (group commit). Rejects
   * with StoreWriteError when the disk refuses the write. In memory mode it
   * resolves at once.
   */
  commit(): Promise<void>
  /**
   * Resolves once no compaction is running, and the files compactions
   * replaced are closed (in the background: closing the last descriptor of
   * a replaced file frees its blocks). Commits never wait for one; this is
   * for tests and the benchmark, which look at the files.
   */
  compacted(): Promise<void>
  /**
   * Resolves once every document of the data file is located. Start-up
   * passes over the lazy collections' lines (docs/storage.md, "Lazy
   * collections"); this locates them in the background, a slice per turn of
   * the event loop, starting at the first call. Reading or changing such a
   * collection before then locates the rest of it at once, so no caller has
   * to wait for this; the clock's start-up scan does, to read the sessions a
   * slice at a time.
   */
  located(): Promise<void>
  /** Final snapshot, journal truncated, lock released. Idempotent. */
  close(): Promise<void>
  /** The data file, or null in memory mode. */
  readonly file: string | null
}

export interface OpenStoreOptions<S extends Schema> {
  /** The snapshot file (e.g. `.bula/data.json`); omitted means memory only. */
  file?: string
  collections: readonly (keyof S & string)[]
  indexes?: IndexSpec<S>
  /**
   * Collections whose documents start-up may leave unparsed in the snapshot
   * file until they are first read: ones with many documents that are
   * seldom read (idempotency records). No unique index; see docs/storage.md,
   * "Lazy collections".
   */
  lazy?: readonly (keyof S & string)[]
  /**
   * Journal size that triggers a snapshot and truncation. Default: the size
   * of the last snapshot, at least DEFAULT_JOURNAL_THRESHOLD_BYTES (8 MiB), so
   * compaction costs each commit the same however much is stored.
   */
  journalThresholdBytes?: number
  /** Warnings, such as a torn last journal line dropped after a crash. */
  warn?: (message: string) => void
  /**
   * What is wrong with a document, or null: start-up refuses a data file
   * holding one, naming it (services read documents as their type, so a
   * hand-edited field would otherwise fail a request later). Asked only of
   * documents not known to be as bula wrote them: a snapshot whose `check`
   * does not match, and journal puts; an intact snapshot is trusted, so
   * time-to-ready does not grow with a schema pass (docs/storage.md).
   */
  checkDocument?: DocumentCheck
}

/** What is wrong with `doc` as a document of `collection`, or null when nothing is. */
export type DocumentCheck = (collection: string, doc: Doc) => string | null

export interface OpenedStore<S extends Schema> {
  store: Store<S>
  /** True when no data existed (new file, or memory): the caller seeds demo data. */
  fresh: boolean
}

/** Start-up refused: the message names the file and says what is wrong. */
export class StoreOpenError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message)
    this.name = 'StoreOpenError'
  }
}

/**
 * A change the disk refused: the commit that carried it is not durable. It is
 * the API's 503 `storage_unavailable`, so every surface (JSON routes, hosted
 * pages, the dashboard) answers it without knowing the store; the disk's own
 * words (`reason`, with the file's path) go to the simulator's log, not to
 * clients.
 */
export class StoreWriteError extends ApiError {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(503, 'storage_unavailable', 'The change could not be written to disk, so it is not confirmed. Retry later (with the same Idempotency-Key where the route takes one).')
    this.name = 'StoreWriteError'
    if (options?.cause !== undefined) this.cause = options.cause
  }
}
