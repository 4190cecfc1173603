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
