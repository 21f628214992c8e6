/** A binary min-heap ordered by `dueAt`, then by insertion, so equal times run in the order they were scheduled. */
export interface HeapEntry {
  dueAt: number
  seq: number
  /** A job document's id, or for a derived job (`kind` set) the id of the document it follows from. */
  id: string
  /** Set for a derived job: its kind (ClockService.derive). */
  kind?: string
}

const before = (a: HeapEntry, b: HeapEntry): boolean => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq)

export class MinHeap {
  private readonly items: HeapEntry[] = []

  get size(): number {
    return this.items.length
  }

  peek(): HeapEntry | undefined {
    return this.items[0]
  }

  push(entry: HeapEntry): void {
    const items = this.items
    items.push(entry)
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }

  pop(): HeapEntry | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        const right = left + 1
        let smallest = i
        if (left < items.length && before(items[left]!, items[smallest]!)) smallest = left
        if (right < items.length && before(items[right]!, items[smallest]!)) smallest = right
        if (smallest === i) break
        ;[items[i], items[smallest]] = [items[smallest]!, items[i]!]
        i = smallest
      }
    }
    return top
  }
}
