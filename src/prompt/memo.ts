/**
 * Memoization for the builder. Contexts are immutable values: an agent that changes one field makes
 * a new context with `{ ...context, date }`, so unchanged fields keep their identity. Each stage
 * remembers the inputs it was computed from and is reused while they are the same values (`===`).
 */

/** True when two input lists hold the same values, compared with `===` (objects by identity). */
export function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** A small cache of the most recent results, each keyed by its list of inputs. */
export class RecentResults<T> {
  readonly #entries: { inputs: readonly unknown[]; value: T }[] = []
  constructor(readonly size: number) {}

  /** The result computed from these inputs, computing (and remembering) it when it is not there. */
  get(inputs: readonly unknown[], compute: () => T): T {
    for (const entry of this.#entries) if (sameInputs(entry.inputs, inputs)) return entry.value
    const value = compute()
    this.#entries.unshift({ inputs, value })
    if (this.#entries.length > this.size) this.#entries.pop()
    return value
  }
}

/** A Map that forgets everything when it grows past its limit (bounded memory, no eviction bookkeeping). */
export class BoundedMap<K, V> {
  readonly #map = new Map<K, V>()
  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    return this.#map.get(key)
  }

  set(key: K, value: V): V {
    if (this.#map.size >= this.limit) this.#map.clear()
    this.#map.set(key, value)
    return value
  }
}
