import { parentPort } from 'node:worker_threads'
import { messageOf } from './error-info.js'
import { RawDocs, type RawTable } from './raw-docs.js'
import { SnapshotRenderer, type FrozenCollection, type JournalCoverage, type LazyValue } from './snapshot-render.js'

/**
 * The thread that renders a compaction's snapshot (BackgroundSnapshot,
 * docs/storage.md "Compaction"): the store's thread sends it the frozen
 * state, then asks for the text a chunk at a time and writes each chunk
 * itself. One thread, one snapshot. The documents a lazy collection keeps on disk are read here,
 * through the store's own descriptors.
 */

/** What the store's thread sends, in this order: the frozen state in slices, render, then next until the end. */
export type ToRenderThread =
  | { type: 'collection'; name: string; lazy: boolean }
  | { type: 'documents'; ids: string[] | null; values: LazyValue[] }
  | { type: 'group'; index: string }
  | { type: 'key'; key: string }
  | { type: 'members'; ids: string[] }
  | { type: 'render'; journal: JournalCoverage; raw: RawTable }
  | { type: 'next' }

/** The answer to each `next`: a chunk, the end with where the lazy documents landed, or why it failed. */
export type FromRenderThread =
  | { type: 'chunk'; bytes: Uint8Array<ArrayBuffer> }
  | { type: 'end'; bytes: number; offsets: Float64Array<ArrayBuffer>; lengths: Float64Array<ArrayBuffer> }
  | { type: 'error'; message: string }

/** The state as frozen, as it arrives; a thread renders one snapshot. */
const collections: FrozenCollection[] = []
let renderer: SnapshotRenderer | null = null
/** Why the state could not be taken in; `next` answers with it. */
let failure: string | null = null

parentPort?.on('message', (message: ToRenderThread) => {
  if (message.type === 'next') return answerNext()
  try {
    receive(message)
  } catch (error) {
    failure ??= messageOf(error)
  }
})

function receive(message: Exclude<ToRenderThread, { type: 'next' }>): void {
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
      return
    case 'render':
      renderer = new SnapshotRenderer(collections, message.journal, RawDocs.readerOf(message.raw))
  }
}

function answerNext(): void {
  try {
    if (failure !== null) throw new Error(failure)
    if (!renderer) throw new Error('next before render')
    const chunk = renderer.next()
    if (chunk === null) {
      const offsets = Float64Array.from(renderer.lazySpans.offsets)
      const lengths = Float64Array.from(renderer.lazySpans.lengths)
      reply({ type: 'end', bytes: renderer.bytes, offsets, lengths }, [offsets.buffer, lengths.buffer])
      return
    }
    // A copy: the renderer reuses its buffer for the next chunk.
    const bytes = new Uint8Array(chunk)
    reply({ type: 'chunk', bytes }, [bytes.buffer])
  } catch (error) {
    reply({ type: 'error', message: messageOf(error) }, [])
  }
}

function reply(message: FromRenderThread, transfer: ArrayBuffer[]): void {
  parentPort!.postMessage(message, transfer)
}

function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item)
}
