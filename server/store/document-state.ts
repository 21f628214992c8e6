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
 * A rendered snapshot: its UTF-8 bytes in chunks of about 1 MiB. Not one
 * string: at 100,000 sessions that was a 130 MB string plus an array of
 * 300,000 line strings, which grew the JS heap by several hundred MB at
 * every compaction, and V8 keeps a heap it has grown.
 */
export interface SnapshotText {
  chunks: Buffer[]
  bytes: number
}

const CHUNK_CHARS = 1 << 20

/** Collects text and turns it into UTF-8 Buffers (outside the JS heap) about every MiB. */
class ChunkedText {
  private parts: string[] = []
  private chars = 0
  private readonly chunks: Buffer[] = []
  private bytes = 0

  add(text: string): void {
    this.parts.push(text)
    this.chars += text.length
    if (this.chars >= CHUNK_CHARS) this.flush()
  }

  finish(): SnapshotText {
    this.flush()
    return { chunks: this.chunks, bytes: this.bytes }
  }

  private flush(): void {
    if (this.parts.length === 0) return
    const chunk = Buffer.from(this.parts.join(''), 'utf8')
    this.chunks.push(chunk)
    this.bytes += chunk.length
    this.parts = []
    this.chars = 0
  }
}

/** A checked snapshot as start-up uses it: the documents already in maps, in file order. */
export interface LoadedSnapshot {
  collections: Map<string, Map<string, Doc>>
  groups?: unknown
  journal?: unknown
}

/** The first lines of every snapshot this code writes (docs/storage.md, "Snapshot"); start-up reads such files line by line. */
export const SNAPSHOT_HEAD = '{\n  "format": "bula-data",\n  "version": 1,\n  "collections": {\n'
/** How a document line starts: inside its collection, one document per line. */
export const DOCUMENT_INDENT = '      '

/**
 * The first `bytes` bytes of the journal, when their SHA-256 is `sha256`, are
 * contained in the snapshot that carries this: start-up skips them instead
 * of replaying them over a newer state (a crash between a snapshot and the
 * journal's truncation).
 */
export interface JournalCoverage {
  bytes: number
  sha256: string
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
  readonly keyById: Map<string, string>
}

interface Collection {
  /** Replaced only by load(), which adopts the map parsed from the snapshot instead of copying it. */
  docs: Map<string, Doc>
  readonly unique: Map<string, UniqueIndex>
  readonly groups: Map<string, GroupIndex>
}

const NO_IDS: readonly string[] = Object.freeze([])

/** The whole database in memory: documents by id plus the unique and group indexes. */
export class DocumentState {
  private readonly collections = new Map<string, Collection>()

  constructor(names: readonly string[], indexes: IndexSpec<Schema> = {}) {
    for (const name of names) {
      const collection = emptyCollection()
      for (const [index, keyOf] of Object.entries(indexes.unique?.[name] ?? {})) {
        collection.unique.set(index, { keyOf, idByKey: new Map(), keyById: new Map() })
      }
      for (const [index, keyOf] of Object.entries(indexes.groups?.[name] ?? {})) {
        collection.groups.set(index, { keyOf, idsByKey: new Map(), keyById: new Map() })
      }
      this.collections.set(name, collection)
    }
  }

  docs(name: string): Map<string, Doc> {
    return this.declared(name).docs
  }

  lookup(name: string, index: string, key: string): Doc | undefined {
    const collection = this.declared(name)
    const unique = collection.unique.get(index)
    if (!unique) throw new Error(`Collection "${name}" has no unique index "${index}".`)
    const id = unique.idByKey.get(key)
    return id === undefined ? undefined : collection.docs.get(id)
  }

  group(name: string, index: string, key: string): readonly string[] {
    const groups = this.declared(name).groups.get(index)
    if (!groups) throw new Error(`Collection "${name}" has no group index "${index}".`)
    return groups.idsByKey.get(key) ?? NO_IDS
  }

  put(name: string, doc: Doc): void {
    putInto(this.declared(name), doc)
  }

  /** True when the document existed. */
  delete(name: string, id: string): boolean {
    return deleteFrom(this.declared(name), id)
  }

  /**
   * Journal replay: a collection the file knows but this code does not
   * declare is kept (and written back) rather than dropped.
   */
  replayPut(name: string, doc: Doc): void {
    putInto(this.anyCollection(name), doc)
  }

  replayDelete(name: string, id: string): void {
    deleteFrom(this.anyCollection(name), id)
  }

  /** Fills an empty state from a snapshot; groups keep their saved order. */
  load(data: LoadedSnapshot): void {
    for (const [name, docs] of data.collections) {
      const collection = this.anyCollection(name)
      if (collection.docs.size === 0) collection.docs = docs
      else for (const [id, doc] of docs) collection.docs.set(id, doc)
      for (const index of collection.unique.values()) {
        for (const doc of collection.docs.values()) setUnique(index, doc.id, index.keyOf(doc))
      }
      for (const [indexName, index] of collection.groups) {
        restoreGroupOrder(collection, index, savedGroups(data.groups, name, indexName))
      }
    }
  }

  /**
   * The snapshot file's text: indented JSON with one compact line per
   * document (docs/storage.md, "Snapshot"), so that it stays readable and
   * editable, and start-up can parse it document by document. It is rendered
   * synchronously so it is one point in time: no change can slip in between
   * two collections. `journal` is the part of the journal this state already
   * contains.
   */
  render(journal: JournalCoverage): SnapshotText {
    const out = new ChunkedText()
    const groups: string[] = []
    out.add(SNAPSHOT_HEAD)
    let remaining = this.collections.size
    for (const [name, collection] of this.collections) {
      const after = --remaining > 0 ? ',' : ''
      if (collection.docs.size === 0) {
        out.add(`    ${JSON.stringify(name)}: {}${after}\n`)
      } else {
        out.add(`    ${JSON.stringify(name)}: {\n`)
        let left = collection.docs.size
        for (const [id, doc] of collection.docs) out.add(`${DOCUMENT_INDENT}${JSON.stringify(id)}: ${JSON.stringify(doc)}${--left > 0 ? ',' : ''}\n`)
        out.add(`    }${after}\n`)
      }
      if (collection.groups.size > 0) {
        const indexes = Object.fromEntries([...collection.groups].map(([index, group]) => [index, Object.fromEntries(group.idsByKey)]))
        groups.push(`    ${JSON.stringify(name)}: ${JSON.stringify(indexes)}`)
      }
    }
    out.add('  },\n')
    out.add(groups.length > 0 ? `  "groups": {\n${groups.join(',\n')}\n  },\n` : '  "groups": {},\n')
    out.add(`  "journal": ${JSON.stringify(journal)}\n}\n`)
    return out.finish()
  }

  private declared(name: string): Collection {
    const collection = this.collections.get(name)
    if (!collection) throw new Error(`Unknown collection "${name}".`)
    return collection
  }

  private anyCollection(name: string): Collection {
    let collection = this.collections.get(name)
    if (!collection) {
      collection = emptyCollection()
      this.collections.set(name, collection)
    }
    return collection
  }
}

function emptyCollection(): Collection {
  return { docs: new Map(), unique: new Map(), groups: new Map() }
}

function putInto(collection: Collection, doc: Doc): void {
  collection.docs.set(doc.id, doc)
  for (const index of collection.unique.values()) setUnique(index, doc.id, index.keyOf(doc))
  for (const index of collection.groups.values()) {
    const key = index.keyOf(doc)
    const previousKey = index.keyById.get(doc.id)
    if (previousKey === key) continue
    if (previousKey !== undefined) leaveGroup(index, previousKey, doc.id)
    joinGroup(index, key, doc.id)
  }
}

function deleteFrom(collection: Collection, id: string): boolean {
  if (!collection.docs.delete(id)) return false
  for (const index of collection.unique.values()) {
    const key = index.keyById.get(id)
    index.keyById.delete(id)
    if (key !== undefined && index.idByKey.get(key) === id) index.idByKey.delete(key)
  }
  for (const index of collection.groups.values()) {
    const key = index.keyById.get(id)
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
  const ids = index.idsByKey.get(key)
  if (ids) ids.push(id)
  else index.idsByKey.set(key, [id])
  index.keyById.set(id, key)
}

function leaveGroup(index: GroupIndex, key: string, id: string): void {
  index.keyById.delete(id)
  const ids = index.idsByKey.get(key)
  if (!ids) return
  const position = ids.indexOf(id)
  if (position >= 0) ids.splice(position, 1)
  if (ids.length === 0) index.idsByKey.delete(key)
}

/**
 * Rebuilds one group index: first the saved order, keeping only ids whose
 * document still exists under that key (the file may have been edited by
 * hand), then every document not placed yet, in document order.
 */
function restoreGroupOrder(collection: Collection, index: GroupIndex, saved: Record<string, unknown>): void {
  for (const [key, ids] of Object.entries(saved)) {
    if (!Array.isArray(ids)) continue
    // The group's array is looked up once, not once per id: a group can hold every document of the collection.
    let group = index.idsByKey.get(key)
    for (const id of ids) {
      const doc = typeof id === 'string' ? collection.docs.get(id) : undefined
      if (doc && !index.keyById.has(id) && index.keyOf(doc) === key) {
        if (group) group.push(id)
        else index.idsByKey.set(key, (group = [id]))
        index.keyById.set(id, key)
      }
    }
  }
  if (index.keyById.size === collection.docs.size) return
  for (const doc of collection.docs.values()) {
    if (!index.keyById.has(doc.id)) joinGroup(index, index.keyOf(doc), doc.id)
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
