import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { packageRoot } from '../../src/package-root.js'
import { messageOf } from './error-info.js'
import type { RawTable } from './raw-docs.js'
import type { FromRenderThread, ToRenderThread } from './render-thread.js'
import type { FrozenCollection, JournalCoverage, SnapshotSource } from './snapshot-render.js'

/**
 * The render thread's script. The built one also when the store runs from
 * its TypeScript sources (the test suite): a worker thread loads
 * JavaScript, and `npm test` builds first.
 */
const RENDER_THREAD_SCRIPT = (): string => path.join(packageRoot(), 'dist', 'server', 'store', 'render-thread.js')

/** Ids per message: some milliseconds of copying for the thread, so requests are served between messages. */
const IDS_PER_MESSAGE = 10_000
/** Parsed documents (collections that are not lazy) per message: each is copied field by field. */
const PARSED_PER_MESSAGE = 500
/** How long the state is handed over before requests get a turn. */
const FEED_SLICE_MS = 4

/**
 * A compaction's snapshot, rendered in a thread of its own
 * (render-thread.ts) while this one serves requests: the frozen state is
 * handed over a slice at a time, and the thread renders the text straight
 * into the file. At 100,000 sessions rendering took about a second of the
 * event loop's time, a few milliseconds at a time between requests: about
 * 2.5 µs a create at 50 connections (docs/performance.md). Handing the
 * state over costs a fraction of that. The thread is started for one
 * snapshot and stopped after it, so an idle simulator keeps no second heap.
 */
export class BackgroundSnapshot implements SnapshotSource {
  lazySpans: { offsets: ArrayLike<number>; lengths: ArrayLike<number> } = { offsets: [], lengths: [] }
  bytes = 0
  private readonly answers: FromRenderThread[] = []
  private wake: (() => void) | null = null
  private failure: Error | null = null

  /** `raw` describes the entries the frozen values name (RawDocs.table), taken at the same instant. */
  constructor(
    readonly collections: readonly FrozenCollection[],
    readonly journal: JournalCoverage,
    private readonly raw: RawTable,
  ) {}

  abort(reason: string): void {
    this.failure ??= new Error(reason)
    this.wake?.()
  }

  /** Starts the thread here, not when frozen: a thread the system refuses then fails this compaction, not the commit that froze it. */
  async writeTo(handle: FileHandle): Promise<void> {
    if (this.failure) throw this.failure
    const worker = new Worker(RENDER_THREAD_SCRIPT())
    try {
      // Stopped below in any case; meanwhile it must not keep a process alive that is otherwise done.
      worker.unref()
      worker.on('message', (answer: FromRenderThread) => this.receive(answer))
      worker.on('error', (error) => this.receive({ type: 'error', message: messageOf(error) }))
      worker.on('exit', () => this.receive({ type: 'error', message: 'the render thread stopped' }))
      await this.feed(worker)
      if (this.failure) throw this.failure
      const { journal, raw } = this
      worker.postMessage({ type: 'render', journal, raw, fd: handle.fd } satisfies ToRenderThread, [raw.offsets.buffer, raw.lengths.buffer, raw.origins.buffer])
      const answer = await this.answer()
      if (answer.type === 'error') throw new Error(`the snapshot could not be rendered: ${answer.message}`)
      this.lazySpans = { offsets: answer.offsets, lengths: answer.lengths }
      this.bytes = answer.bytes
    } finally {
      // The thread writes through `handle`'s descriptor: it has stopped before the caller closes it.
      await worker.terminate()
    }
  }

  private receive(answer: FromRenderThread): void {
    this.answers.push(answer)
    this.wake?.()
  }

  private async answer(): Promise<FromRenderThread> {
    while (this.answers.length === 0) {
      if (this.failure) throw this.failure
      await new Promise<void>((resolve) => (this.wake = resolve))
      this.wake = null
    }
    return this.answers.shift()!
  }

  /** The frozen state, a slice at a time between requests; the arrays are this snapshot's own, so later changes do not reach them. */
  private async feed(worker: Worker): Promise<void> {
    let sliceStart = performance.now()
    for (const message of stateMessages(this.collections)) {
      if (this.failure) return
      worker.postMessage(message)
      if (performance.now() - sliceStart < FEED_SLICE_MS) continue
      await new Promise((resolve) => setImmediate(resolve))
      sliceStart = performance.now()
    }
  }
}

function* stateMessages(collections: readonly FrozenCollection[]): Generator<ToRenderThread, void> {
  for (const { name, ids, values, groups } of collections) {
    yield { type: 'collection', name, lazy: ids !== null }
    const per = ids === null ? PARSED_PER_MESSAGE : IDS_PER_MESSAGE
    for (let from = 0; from < values.length; from += per) {
      yield { type: 'documents', ids: ids?.slice(from, from + per) ?? null, values: values.slice(from, from + per) }
    }
    for (const [index, keys] of groups) {
      yield { type: 'group', index }
      for (const [key, members] of keys) {
        yield { type: 'key', key }
        for (let from = 0; from < members.length; from += IDS_PER_MESSAGE) yield { type: 'members', ids: members.slice(from, from + IDS_PER_MESSAGE) }
      }
    }
  }
}
