/**
 * Delivery claims held in one process: key -> time the claim lapses. Lapsed
 * claims are dropped lazily, oldest first, from a min-heap by expiry, so a
 * claim costs O(log n) however many are held (no scan of every claim).
 * A released or re-claimed key leaves its old heap entry behind; that entry is
 * skipped when it surfaces (the map no longer holds its time).
 */
export class DeliveryClaims {
  private readonly until = new Map<string, number>();
  /** Min-heap of [lapses at, key]. */
  private readonly heap: Array<[number, string]> = [];

  /** Claims `key` until `now + ttlMs`; false while an earlier claim holds. */
  claim(key: string, ttlMs: number, now: number): boolean {
    this.dropLapsed(now);
    const held = this.until.get(key);
    if (held !== undefined && held > now) return false;
    this.until.set(key, now + ttlMs);
    this.push([now + ttlMs, key]);
    return true;
  }

  /** True while a claim on `key` holds at `now`. */
  held(key: string, now: number): boolean {
    const held = this.until.get(key);
    return held !== undefined && held > now;
  }

  release(key: string): void {
    this.until.delete(key);
  }

  /** Claims still holding at `now` (what a restart of the process forgets). */
  heldAt(now: number): number {
    let n = 0;
    for (const until of this.until.values()) if (until > now) n += 1;
    return n;
  }

  /** Claims held (lapsed ones not yet dropped included). */
  get size(): number {
    return this.until.size;
  }

  private dropLapsed(now: number): void {
    for (let top = this.heap[0]; top !== undefined && top[0] <= now; top = this.heap[0]) {
      this.pop();
      if (this.until.get(top[1]) === top[0]) this.until.delete(top[1]);
    }
    // Stale entries (released keys) surface only at their time; keep the heap near the map's size.
    if (this.heap.length > 1024 && this.heap.length > 4 * this.until.size) this.rebuild();
  }

  private rebuild(): void {
    this.heap.length = 0;
    for (const [key, at] of this.until) this.push([at, key]);
  }

  private push(entry: [number, string]): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]![0] <= entry[0]) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = entry;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const child = r < h.length && h[r]![0] < h[l]![0] ? r : l;
      if (h[child]![0] >= last[0]) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = last;
  }
}
