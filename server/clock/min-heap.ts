/** A binary min-heap ordered by `dueAt`, then by insertion, so equal times run in the order they were scheduled. */
export interface HeapEntry {
  dueAt: number
  seq: number
  /** A job document's id, or for a derived job (`kind` set) the id of the document it follows from. */
  id: string
  /** Set for a derived job: its kind (ClockService.derive). */
  kind?: string
}

/**
 * Entries are kept in parallel arrays rather than as one object each: with
 * a pending Checkout Session per entry, 100,000 objects were about 6 MB more
 * of heap for the same four fields.
 */
export class MinHeap {
  private readonly dueAt: number[] = []
  private readonly seq: number[] = []
  private readonly id: string[] = []
  private readonly kind: (string | undefined)[] = []

  get size(): number {
    return this.id.length
  }

  peek(): HeapEntry | undefined {
    return this.id.length === 0 ? undefined : this.entry(0)
  }

  /** The first entry's due time, Infinity when empty: what the timer asks of every merchant's heap on each create, without an entry object. */
  earliestDueAt(): number {
    return this.id.length === 0 ? Infinity : this.dueAt[0]!
  }

  push(entry: HeapEntry): void {
    this.dueAt.push(entry.dueAt)
    this.seq.push(entry.seq)
    this.id.push(entry.id)
    this.kind.push(entry.kind)
    let i = this.id.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.before(i, parent)) break
      this.swap(i, parent)
      i = parent
    }
  }

  pop(): HeapEntry | undefined {
    if (this.id.length === 0) return undefined
    const top = this.entry(0)
    const last = this.id.length - 1
    this.swap(0, last)
    this.dueAt.pop()
    this.seq.pop()
    this.id.pop()
    this.kind.pop()
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let smallest = i
      if (left < this.id.length && this.before(left, smallest)) smallest = left
      if (right < this.id.length && this.before(right, smallest)) smallest = right
      if (smallest === i) break
      this.swap(i, smallest)
      i = smallest
    }
    return top
  }

  private entry(i: number): HeapEntry {
    const kind = this.kind[i]
    return { dueAt: this.dueAt[i]!, seq: this.seq[i]!, id: this.id[i]!, ...(kind === undefined ? {} : { kind }) }
  }

  private before(a: number, b: number): boolean {
    return this.dueAt[a]! < this.dueAt[b]! || (this.dueAt[a] === this.dueAt[b] && this.seq[a]! < this.seq[b]!)
  }

  private swap(a: number, b: number): void {
    swapIn(this.dueAt, a, b)
    swapIn(this.seq, a, b)
    swapIn(this.id, a, b)
    swapIn(this.kind, a, b)
  }
}

function swapIn<T>(array: T[], a: number, b: number): void {
  const kept = array[a]!
  array[a] = array[b]!
  array[b] = kept
}
