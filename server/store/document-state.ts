import { RawDocs } from './raw-docs.js'
import { DeferredSection, type DeferredSpan } from './document-lines.js'
import { BackgroundSnapshot } from './background-snapshot.js'
import { SnapshotRenderer, type FrozenCollection, type JournalCoverage, type LazyValue, type SnapshotSource } from './snapshot-render.js'
import type { Doc, IndexSpec, KeyFn, Schema } from './types.js'

/** What the snapshot file holds (docs/storage.md describes the format). */
export interface SnapshotData {
  format: 'bula-data'
  version: 1
  collections: Record<string, Record<string, Doc>>
  /**
   * The order of every group index (collection → index → key → ids). It is
   * derived data: documents are the truth, and ids that no longer match
   * their document are ignored when loading.
   */
  groups?: unknown
  /** The journal prefix this snapshot already contains (see JournalCoverage). */
  journal?: unknown
}

/**
 * A document as the state holds it: parsed, or in a lazy collection its JSON
 * text or the index of its text in the origin file (LazyValue).
 */
type Stored = Doc | LazyValue

/** A checked snapshot as start-up uses it: the documents already in maps, in file order. */
export interface LoadedSnapshot {
  collections: Map<string, Map<string, Stored>>
  groups?: unknown
  journal?: unknown
  /**
   * The file is byte for byte as bula wrote it (its `check` matched), so its
   * group order agrees with its documents and need not be checked against them.
   */
  intact?: boolean
  /** Lazy collections whose documents are still to be located, in the file (only in an intact one). */
  deferred?: DeferredSpan[]
}

/** A document of a lazy collection now in a journal line: its text as put, and where the line put it. */
export interface Placement {
  collection: string
  id: string
  json: string
  offset: number
  length: number
}

interface UniqueIndex {
  readonly keyOf: KeyFn<Doc>
  readonly idByKey: Map<string, string>
  /** The key each document was indexed under: a caller that changed a stored object in place cannot strand an entry. */
  readonly keyById: Map<string, string>
}

interface GroupIndex {
  readonly keyOf: KeyFn<Doc>
  readonly idsByKey: Map<string, string[]>
  /**
   * The key each document joined its group with. Not kept in a lazy
   * collection: no caller holds its stored documents (get answers copies),
   * so the stored document itself says which group it is in.
   */
  readonly keyById: Map<string, string> | null
  /**
   * Ids that left a group since it was last read, applied in one pass when it
   * is read next: removing from the front of a 100,000-id array one id at a
   * time moved the whole array each time.
   */
  readonly left: Map<string, Set<string>>
}

interface Collection {
  /** Replaced only by load(), which adopts the map parsed from the snapshot instead of copying it. */
  docs: Map<string, Stored>
  readonly lazy: boolean
  /**
   * Documents of the snapshot still to be located (a lazy collection, after
   * start-up), and the saved group order to restore once they are: `docs`
   * is incomplete until then, so every read or change locates the rest first.
   */
  deferred: { section: DeferredSection; groups: unknown } | null
  readonly unique: Map<string, UniqueIndex>
  readonly groups: Map<string, GroupIndex>
}

const NO_IDS: readonly string[] = Object.freeze([])

/** The whole database in memory: documents by id plus the unique and group indexes. */
export class DocumentState {
  private readonly collections = new Map<string, Collection>()
  /** Where documents of lazy collections are on disk: entries in the last snapshot and in the journal. */
  private readonly raw = new RawDocs()
  private journalOrigin: number | null = null
  private snapshotOrigin: number | null = null

  constructor(names: readonly string[], indexes: IndexSpec<Schema> = {}, lazy: readonly string[] = []) {
    for (const name of names) {
      const collection = emptyCollection(lazy.includes(name))
      for (const [index, keyOf] of Object.entries(indexes.unique?.[name] ?? {})) {
        // A unique index needs every key at start-up, which would parse every document of a lazy collection.
        if (collection.lazy) throw new Error(`Collection "${name}" is lazy and cannot have a unique index ("${index}").`)
        collection.unique.set(index, { keyOf, idByKey: new Map(), keyById: new Map() })
      }
      for (const [index, keyOf] of Object.entries(indexes.groups?.[name] ?? {})) {
        collection.groups.set(index, { keyOf, idsByKey: new Map(), keyById: collection.lazy ? null : new Map(), left: new Map() })
      }
      this.collections.set(name, collection)
    }
  }

  isLazy(name: string): boolean {
    return this.named(name).lazy
  }

  /**
   * Locates up to `lines` more documents that start-up left in the snapshot
   * (LoadedSnapshot.deferred); true when none are left. The store calls it a
   * slice at a time after start-up; anything that reads a collection first
   * has the rest of that collection located at once.
   */
  locateSome(lines: number): boolean {
    for (const collection of this.collections.values()) {
      if (!collection.deferred) continue
      if (this.locate(collection, lines)) this.restoreDeferredGroups(collection)
      return false
    }
    return true
  }

  /** Collections whose documents start-up may leave unparsed until first read. */
  lazyNames(): Set<string> {
    return new Set([...this.collections].filter(([, collection]) => collection.lazy).map(([name]) => name))
  }

  /** The document; in a lazy collection parsed anew at each call (so a caller's changes to it stay its own). */
  get(name: string, id: string): Doc | undefined {
    const value = this.declared(name).docs.get(id)
    return value === undefined ? undefined : this.parsed(id, value)
  }

  /**
   * Every document, in map order. Unparsed ones are parsed as they come and
   * left unparsed in the map: walking a lazy collection (an export, the
   * clock's scan at start-up) does not keep all of it in memory.
   */
  values(name: string): IterableIterator<Doc> {
    const collection = this.declared(name)
    if (!collection.lazy) return collection.docs.values() as IterableIterator<Doc>
    return this.parsedValues(collection.docs)
  }

  size(name: string): number {
    return this.declared(name).docs.size
  }

  lookup(name: string, index: string, key: string): Doc | undefined {
    const collection = this.declared(name)
    const unique = collection.unique.get(index)
    if (!unique) throw new Error(`Collection "${name}" has no unique index "${index}".`)
    const id = unique.idByKey.get(key)
    return id === undefined ? undefined : this.get(name, id)
  }

  group(name: string, index: string, key: string): readonly string[] {
    const groups = this.declared(name).groups.get(index)
    if (!groups) throw new Error(`Collection "${name}" has no group index "${index}".`)
    return settledGroup(groups, key) ?? NO_IDS
  }

  /** `json` is the document's JSON text, which a lazy collection keeps instead of the object until it is on disk. */
  put(name: string, doc: Doc, json?: string): void {
    const collection = this.declared(name)
    const before = this.before(collection, doc.id)
    putInto(collection, doc, collection.lazy && json !== undefined ? json : doc, before)
  }

  /** True when the document existed. */
  delete(name: string, id: string): boolean {
    const collection = this.declared(name)
    return deleteFrom(collection, id, this.before(collection, id))
  }

  /**
   * What is stored under `id` before it changes: its entry is released, and
   * in a lazy collection with groups the document says which group it leaves.
   */
  private before(collection: Collection, id: string): Doc | undefined {
    const value = collection.docs.get(id)
    if (value === undefined) return undefined
    const doc = collection.lazy && collection.groups.size > 0 ? this.parsed(id, value) : undefined
    if (typeof value === 'number') this.raw.release(value)
    return doc
  }

  /**
   * Journal lines are on disk: their documents of lazy collections, where
   * still as put, are read from there from now on, and leave memory.
   */
  placed(placements: readonly Placement[]): void {
    if (this.journalOrigin === null) return
    for (const { collection, id, json, offset, length } of placements) {
      const { docs } = this.collections.get(collection)!
      if (docs.get(id) === json) docs.set(id, this.raw.add(this.journalOrigin, offset, length))
    }
  }

  /** The journal file whose lines placed() points into, opened for reading. */
  readJournal(file: string): void {
    if (this.lazyNames().size > 0) this.journalOrigin = this.raw.openOrigin(file)
  }

  /** The journal was replaced by its part after `prefix` (a compaction): entries in it move with it. */
  journalSwapped(file: string, prefix: number): void {
    if (this.journalOrigin === null) return
    const origin = this.raw.openOrigin(file)
    this.raw.rebase(this.journalOrigin, origin, prefix)
    this.journalOrigin = origin
    this.raw.settle(this.origins())
  }

  /**
   * Journal replay: a collection the file knows but this code does not
   * declare is kept (and written back) rather than dropped.
   */
  replayPut(name: string, doc: Doc): void {
    const collection = this.anyCollection(name)
    const before = this.before(collection, doc.id)
    putInto(collection, doc, collection.lazy ? JSON.stringify(doc) : doc, before)
  }

  replayDelete(name: string, id: string): void {
    const collection = this.anyCollection(name)
    deleteFrom(collection, id, this.before(collection, id))
  }

  /**
   * Fills an empty state from a snapshot (read through `fd`, which it keeps
   * if documents are left in it); groups keep their saved order, restored in
   * a deferred collection once its documents are located.
   */
  load(data: LoadedSnapshot, file: string, fd: number): void {
    if (data.deferred) this.snapshotOrigin = this.raw.openOrigin(file, fd)
    for (const span of data.deferred ?? []) {
      this.named(span.collection).deferred = { section: new DeferredSection(span, fd, file), groups: data.groups }
    }
    for (const [name, docs] of data.collections) {
      const collection = this.orAdded(name)
      if (collection.deferred) continue
      if (collection.docs.size === 0) collection.docs = docs
      else for (const [id, doc] of docs) collection.docs.set(id, doc)
      for (const index of collection.unique.values()) {
        for (const doc of collection.docs.values()) setUnique(index, (doc as Doc).id, index.keyOf(doc as Doc))
      }
      for (const [indexName, index] of collection.groups) {
        restoreGroupOrder(collection, index, savedGroups(data.groups, name, indexName), data.intact === true, (id, value) => this.parsed(id, value))
      }
    }
  }

  /**
   * The state as it is now, as a snapshot rendered chunk by chunk
   * (docs/storage.md, "Snapshot"). Only arrays of the documents are taken
   * here, synchronously, so it is one point in time: documents are never
   * changed in place, so later puts and deletes do not reach the rendering.
   * `journal` is the part of the journal this state already contains.
   * Rendered in a thread of its own `inBackground` (a compaction, while
   * requests are served), else here.
   */
  freeze(journal: JournalCoverage, inBackground = false): SnapshotSource {
    const frozen: FrozenCollection[] = []
    for (const [name, collection] of this.collections) {
      this.located(collection)
      frozen.push({
        name,
        ids: collection.lazy ? Array.from(collection.docs.keys()) : null,
        values: Array.from(collection.docs.values()),
        groups: [...collection.groups].map(([index, group]) => [index, settledGroups(group)]),
      })
    }
    return inBackground ? new BackgroundSnapshot(frozen, journal, this.raw.table()) : new SnapshotRenderer(frozen, journal, this.raw.reader())
  }

  /**
   * After `renderer`'s snapshot replaced the file: every document of a lazy
   * collection still as it was when frozen is read from the new snapshot
   * from now on, and the file becomes the origin. An entry only moves (no
   * map is touched for it); a document kept as text since the previous
   * snapshot gets an entry.
   */
  adopt(file: string, renderer: SnapshotSource): void {
    const { offsets, lengths } = renderer.lazySpans
    if (offsets.length === 0 && this.snapshotOrigin === null) return
    const origin = this.raw.openOrigin(file)
    const covered = renderer.journal.bytes
    let slot = 0
    for (const frozen of renderer.collections) {
      if (frozen.ids === null) continue
      const { docs } = this.collections.get(frozen.name)!
      for (let n = 0; n < frozen.ids.length; n++, slot++) {
        const value = frozen.values[n]!
        if (typeof value === 'number') {
          this.raw.point(value, origin, offsets[slot]!, lengths[slot]!)
          continue
        }
        const id = frozen.ids[n]!
        const now = docs.get(id)
        if (now === value) docs.set(id, this.raw.add(origin, offsets[slot]!, lengths[slot]!))
        // Text when frozen, placed in the journal since: by the line the snapshot holds, so the same document.
        else if (typeof now === 'number' && this.journalOrigin !== null && this.raw.before(now, this.journalOrigin, covered)) {
          this.raw.point(now, origin, offsets[slot]!, lengths[slot]!)
        }
      }
    }
    this.snapshotOrigin = origin
    this.raw.settle(this.origins())
  }

  /** The origins entries may point at now: the last snapshot and the journal. */
  private origins(): number[] {
    return [this.snapshotOrigin, this.journalOrigin].filter((origin): origin is number => origin !== null)
  }

  close(): void {
    this.raw.close()
  }

  /** Resolves once the files compactions replaced are let go (RawDocs.closed). */
  replacedFilesClosed(): Promise<void> {
    return this.raw.closed()
  }

  /** A stored document as an object: parsed from its text or from the file if it is kept so. */
  private parsed(id: string, value: Stored): Doc {
    if (typeof value === 'number') return this.raw.read(value, id)
    return typeof value === 'string' ? (JSON.parse(value) as Doc) : value
  }

  private *parsedValues(docs: Map<string, Stored>): Generator<Doc, undefined> {
    const read = this.raw.reader()
    for (const [id, value] of docs) {
      const doc = typeof value === 'number' ? this.raw.parse(read(value), id) : this.parsed(id, value)
      // The map's own id string (equal, being checked): a caller that keeps the id (the clock's queue) shares it instead of a copy.
      ;(doc as { id: string }).id = id
      yield doc
    }
    return undefined
  }

  /** The collection, every document located. */
  private declared(name: string): Collection {
    return this.located(this.named(name))
  }

  private named(name: string): Collection {
    const collection = this.collections.get(name)
    if (!collection) throw new Error(`Unknown collection "${name}".`)
    return collection
  }

  private anyCollection(name: string): Collection {
    return this.located(this.orAdded(name))
  }

  /** The collection, added if this code does not declare it; deferred documents left where they are. */
  private orAdded(name: string): Collection {
    let collection = this.collections.get(name)
    if (!collection) {
      collection = emptyCollection(false)
      this.collections.set(name, collection)
    }
    return collection
  }

  /** Locates what is left of a deferred collection, all at once: it is read or changed now. */
  private located(collection: Collection): Collection {
    if (collection.deferred) {
      this.locate(collection, Infinity)
      this.restoreDeferredGroups(collection)
    }
    return collection
  }

  /** Up to `lines` more documents of a deferred collection into its map, each an entry of the snapshot; true when done. */
  private locate(collection: Collection, lines: number): boolean {
    const origin = this.snapshotOrigin!
    return collection.deferred!.section.locate(lines, (id, offset, length) => collection.docs.set(id, this.raw.add(origin, offset, length)))
  }

  private restoreDeferredGroups(collection: Collection): void {
    const { section, groups } = collection.deferred!
    collection.deferred = null
    for (const [indexName, index] of collection.groups) {
      restoreGroupOrder(collection, index, savedGroups(groups, section.span.collection, indexName), true, (id, value) => this.parsed(id, value))
    }
  }
}

function emptyCollection(lazy: boolean): Collection {
  return { docs: new Map(), lazy, deferred: null, unique: new Map(), groups: new Map() }
}

/** The key a stored document has in a group index, or undefined when it is not stored. */
function keyIn(index: GroupIndex, id: string, before: Doc | undefined): string | undefined {
  if (index.keyById) return index.keyById.get(id)
  return before === undefined ? undefined : index.keyOf(before)
}

/**
 * Puts `doc` as `stored` (the document itself, or in a lazy collection its
 * text); indexes read the document. `before` is the document it replaces,
 * in a lazy collection with groups.
 */
function putInto(collection: Collection, doc: Doc, stored: Stored, before?: Doc): void {
  const existed = collection.docs.has(doc.id)
  collection.docs.set(doc.id, stored)
  for (const index of collection.unique.values()) setUnique(index, doc.id, index.keyOf(doc))
  for (const index of collection.groups.values()) {
    const key = index.keyOf(doc)
    const previousKey = existed ? keyIn(index, doc.id, before) : undefined
    if (previousKey === key) continue
    if (previousKey !== undefined) leaveGroup(index, previousKey, doc.id)
    joinGroup(index, key, doc.id)
  }
}

function deleteFrom(collection: Collection, id: string, before?: Doc): boolean {
  if (!collection.docs.delete(id)) return false
  for (const index of collection.unique.values()) {
    const key = index.keyById.get(id)
    index.keyById.delete(id)
    if (key !== undefined && index.idByKey.get(key) === id) index.idByKey.delete(key)
  }
  for (const index of collection.groups.values()) {
    const key = keyIn(index, id, before)
    if (key !== undefined) leaveGroup(index, key, id)
  }
  return true
}

function setUnique(index: UniqueIndex, id: string, key: string): void {
  const previousKey = index.keyById.get(id)
  // A conflicting document may have taken the old key since: leave its entry alone.
  if (previousKey !== undefined && previousKey !== key && index.idByKey.get(previousKey) === id) index.idByKey.delete(previousKey)
  index.idByKey.set(key, id)
  index.keyById.set(id, key)
}

function joinGroup(index: GroupIndex, key: string, id: string): void {
  // An id that left this group and comes back goes to the end: its old place must be gone first.
  const ids = index.left.get(key)?.has(id) ? settledGroup(index, key) : index.idsByKey.get(key)
  if (ids) ids.push(id)
  else index.idsByKey.set(key, [id])
  index.keyById?.set(id, key)
}

function leaveGroup(index: GroupIndex, key: string, id: string): void {
  index.keyById?.delete(id)
  let left = index.left.get(key)
  if (!left) index.left.set(key, (left = new Set()))
  left.add(id)
}

/** The group's ids with those that left it removed (in one pass), or undefined for an empty group. */
function settledGroup(index: GroupIndex, key: string): string[] | undefined {
  const ids = index.idsByKey.get(key)
  const left = index.left.get(key)
  if (!left) return ids
  index.left.delete(key)
  if (!ids) return undefined
  const kept = ids.filter((id) => !left.has(id))
  if (kept.length === 0) {
    index.idsByKey.delete(key)
    return undefined
  }
  index.idsByKey.set(key, kept)
  return kept
}

/** Every group of the index with its ids, copied: what a snapshot writes while the live arrays go on changing. */
function settledGroups(index: GroupIndex): [string, string[]][] {
  for (const key of [...index.left.keys()]) settledGroup(index, key)
  return [...index.idsByKey].map(([key, ids]) => [key, ids.slice()])
}

/**
 * Rebuilds one group index: first the saved order, keeping only ids whose
 * document still exists under that key (the file may have been edited by
 * hand), then every document not placed yet, in document order. An intact
 * file (its check matched) was written from this very index, so its order
 * is taken as it is, without looking at the documents (which may still be
 * unparsed); only documents missing from it (an index this version added)
 * are read.
 */
function restoreGroupOrder(
  collection: Collection,
  index: GroupIndex,
  saved: Record<string, unknown>,
  intact: boolean,
  parse: (id: string, value: Stored) => Doc,
): void {
  const docOf = (id: string): Doc | undefined => {
    const value = collection.docs.get(id)
    return value === undefined ? undefined : parse(id, value)
  }
  let placedCount = 0
  if (intact) {
    // Written from this very index: each id once, each document in its group. The parsed arrays are taken as they are.
    for (const [key, ids] of Object.entries(saved)) {
      if (!Array.isArray(ids) || ids.length === 0) continue
      index.idsByKey.set(key, ids as string[])
      if (index.keyById) for (const id of ids as string[]) index.keyById.set(id, key)
      placedCount += ids.length
    }
    if (placedCount === collection.docs.size) return
  }
  // Which ids have a place: the index's own keyById, or (a lazy collection) a set made for the purpose.
  const placed = index.keyById ?? new Set<string>([...index.idsByKey.values()].flat())
  const place = (id: string, key: string): void => {
    if (index.keyById) index.keyById.set(id, key)
    else (placed as Set<string>).add(id)
  }
  for (const [key, ids] of Object.entries(intact ? {} : saved)) {
    if (!Array.isArray(ids)) continue
    // The group's array is looked up once, not once per id: a group can hold every document of the collection.
    let group = index.idsByKey.get(key)
    for (const id of ids) {
      if (typeof id !== 'string' || placed.has(id)) continue
      const doc = docOf(id)
      if (!doc || index.keyOf(doc) !== key) continue
      if (group) group.push(id)
      else index.idsByKey.set(key, (group = [id]))
      place(id, key)
    }
  }
  if (placed.size === collection.docs.size) return
  for (const id of collection.docs.keys()) {
    if (!placed.has(id)) {
      const key = index.keyOf(docOf(id)!)
      joinGroup(index, key, id)
      place(id, key)
    }
  }
}

function savedGroups(groups: unknown, collection: string, index: string): Record<string, unknown> {
  return asRecord(ownProperty(asRecord(ownProperty(asRecord(groups), collection)), index))
}

/** Names come from the file: `constructor` or `__proto__` must not reach Object.prototype. */
function ownProperty(record: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}
