import { parentPort } from 'node:worker_threads'
import { messageOf } from './error-info.js'
import { RawDocs, type RawTable } from './raw-docs.js'
import { SnapshotRenderer, type FrozenCollection, type JournalCoverage, type LazyValue } from './snapshot-render.js'

/**
 * The thread that renders a compaction's snapshot (BackgroundSnapshot,
 * docs/storage.md "Compaction"): the store's thread sends it the frozen
 * state in slices, then the descriptor of the temp file, and the thread
 * renders the text into it. The documents a lazy collection keeps on disk
 * are read here, through the store's own descriptors. One thread, one
 * snapshot.
 */

/** What the store's thread sends, in this order: the frozen state in slices, then render. */
export type ToRenderThread =
  | { type: 'collection'; name: string; lazy: boolean }
  | { type: 'documents'; ids: string[] | null; values: LazyValue[] }
  | { type: 'group'; index: string }
  | { type: 'key'; key: string }
  | { type: 'members'; ids: string[] }
  | { type: 'render'; journal: JournalCoverage; raw: RawTable; fd: number }

/** The answer to render: where the lazy documents landed in the text, or why it failed. */
export type FromRenderThread =
  | { type: 'written'; bytes: number; offsets: Float64Array<ArrayBuffer>; lengths: Float64Array<ArrayBuffer> }
  | { type: 'error'; message: string }

/** The state as frozen, as it arrives. */
const collections: FrozenCollection[] = []
/** Why the state could not be taken in; render answers with it. */
let failure: string | null = null

parentPort?.on('message', (message: ToRenderThread) => {
  try {
    if (message.type === 'render') return render(message)
    receive(message)
  } catch (error) {
    if (message.type === 'render') reply({ type: 'error', message: messageOf(error) }, [])
    else failure ??= messageOf(error)
  }
})

function receive(message: Exclude<ToRenderThread, { type: 'render' }>): void {
  switch (message.type) {
    case 'collection':
      collections.push({ name: message.name, ids: message.lazy ? [] : null, values: [], groups: [] })
      return
    case 'documents': {
      const collection = collections.at(-1)!
      if (message.ids) append(collection.ids!, message.ids)
      append(collection.values, message.values)
      return
    }
    case 'group':
      collections.at(-1)!.groups.push([message.index, []])
      return
    case 'key':
      collections.at(-1)!.groups.at(-1)![1].push([message.key, []])
      return
    case 'members':
      append(collections.at(-1)!.groups.at(-1)![1].at(-1)![1], message.ids)
  }
}

/** The whole text into `fd`; the store's thread syncs the rest and renames the file. */
function render({ journal, raw, fd }: Extract<ToRenderThread, { type: 'render' }>): void {
  if (failure !== null) throw new Error(failure)
  const renderer = new SnapshotRenderer(collections, journal, RawDocs.readerOf(raw))
  renderer.writeToSync(fd)
  const offsets = Float64Array.from(renderer.lazySpans.offsets)
  const lengths = Float64Array.from(renderer.lazySpans.lengths)
  reply({ type: 'written', bytes: renderer.bytes, offsets, lengths }, [offsets.buffer, lengths.buffer])
}

function reply(message: FromRenderThread, transfer: ArrayBuffer[]): void {
  parentPort!.postMessage(message, transfer)
}

/** A message's items at the end of `target`: one call, so the array grows once a message (10,000 ids at most, well within a call's arguments). */
function append<T>(target: T[], items: readonly T[]): void {
  target.push(...items)
}
