/**
 * A binary min-heap of entries ordered by `at` (ties by insertion order), with each entry's position kept on
 * the entry so `update` can move one in O(log n). Used by the delaying queue's waiting set.
 */

export interface HeapEntry {
  at: number;
  /** Insertion sequence: ties on `at` pop in insertion order. */
  seq: number;
  /** Position in the heap array; -1 when not in a heap. */
  index: number;
}

export class MinHeap<E extends HeapEntry> {
  #items: E[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): E | undefined {
    return this.#items[0];
  }

  push(entry: E): void {
    entry.index = this.#items.length;
    this.#items.push(entry);
    this.#up(entry.index);
  }

  pop(): E | undefined {
    const items = this.#items;
    const top = items[0];
    if (!top) return undefined;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      last.index = 0;
      this.#down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restores order after `entry.at` changed. */
  update(entry: E): void {
    this.#up(entry.index);
    this.#down(entry.index);
  }

  clear(): void {
    for (const e of this.#items) e.index = -1;
    this.#items = [];
  }

  #less(a: E, b: E): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    const a = items[i]!;
    const b = items[j]!;
    items[i] = b;
    items[j] = a;
    a.index = j;
    b.index = i;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#items[i]!, this.#items[parent]!)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < n && this.#less(this.#items[l]!, this.#items[smallest]!)) smallest = l;
      if (r < n && this.#less(this.#items[r]!, this.#items[smallest]!)) smallest = r;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}
