// The simulator's clock: things due at a time, taken earliest first, in the order they were scheduled
// when due at the same time (so a command's result comes before anything scheduled after it).

interface Entry<T> {
  readonly at: number;
  readonly seq: number;
  readonly item: T;
}

export class Agenda<T> {
  private readonly heap: Entry<T>[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, item: T): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, item });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(heap[index] as Entry<T>, heap[parent] as Entry<T>)) break;
      [heap[index], heap[parent]] = [heap[parent] as Entry<T>, heap[index] as Entry<T>];
      index = parent;
    }
  }

  /** The earliest entry, removed; undefined when nothing is due any more. */
  next(): { readonly at: number; readonly item: T } | undefined {
    const heap = this.heap;
    const first = heap[0];
    const last = heap.pop();
    if (first === undefined || last === undefined) return undefined;
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && this.before(heap[left] as Entry<T>, heap[smallest] as Entry<T>))
          smallest = left;
        if (right < heap.length && this.before(heap[right] as Entry<T>, heap[smallest] as Entry<T>))
          smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest] as Entry<T>, heap[index] as Entry<T>];
        index = smallest;
      }
    }
    return first;
  }

  private before(a: Entry<T>, b: Entry<T>): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}
