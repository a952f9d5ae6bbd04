/**
 * A map that holds about `capacity` entries (rounded up to an even number), forgetting the least recently
 * used first. In two generations of half the capacity each: a hit among the recent costs one lookup and
 * no reordering; a hit among the older moves the entry up; when the recent generation is full, the older
 * one is forgotten whole and the recent one takes its place.
 */
export class LruCache<Key, Value> {
  private recent = new Map<Key, Value>();
  private older = new Map<Key, Value>();
  private readonly generationSize: number;

  constructor(capacity: number) {
    this.generationSize = Math.max(1, Math.ceil(capacity / 2));
  }

  get(key: Key): Value | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) {
      return value;
    }
    const older = this.older.get(key);
    if (older !== undefined) {
      this.older.delete(key);
      this.admit(key, older);
    }
    return older;
  }

  set(key: Key, value: Value): void {
    if (this.recent.has(key)) {
      this.recent.set(key, value);
      return;
    }
    this.older.delete(key);
    this.admit(key, value);
  }

  clear(): void {
    this.recent.clear();
    this.older.clear();
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  private admit(key: Key, value: Value): void {
    if (this.recent.size >= this.generationSize) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
  }
}
