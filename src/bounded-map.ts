/**
 * Sets `key` in a map used as a bounded memo: when the map already holds `max` entries, the oldest (first
 * inserted) goes first. Maps keep insertion order, so this is first-in, first-out.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) {
    const oldest = map.keys().next()
    if (!oldest.done) map.delete(oldest.value)
  }
  map.set(key, value)
}

/**
 * A memo bounded by the total weight of what it holds (bytes, entries, code units): when it is over, the
 * oldest entries go first. An entry heavier than `maxEntryWeight` is not kept at all.
 */
export class WeightedMap<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>()
  #weight = 0

  constructor(
    private readonly maxWeight: number,
    private readonly maxEntryWeight = maxWeight,
  ) {}

  get(key: K): V | undefined {
    return this.#entries.get(key)?.value
  }

  /** Keeps `value` for `key` (replacing what was there), unless it weighs more than one entry may. */
  set(key: K, value: V, weight: number): void {
    this.delete(key)
    if (weight > this.maxEntryWeight) return
    this.#entries.set(key, { value, weight })
    this.#weight += weight
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.maxWeight) break
      this.#entries.delete(oldest)
      this.#weight -= entry.weight
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#entries.delete(key)
    this.#weight -= entry.weight
  }
}
