/**
 * Memoization by content. The builder's stages are keyed by the identity of the context fields they
 * read; a context read afresh (from JSON, another process, a server request) shares no objects with the
 * last one, so it would rebuild everything. `ContextCanon` maps each object-valued field to the first
 * value seen that is structurally equal to it, so equal content gets one identity and the stages hit.
 * Each field object is compared once (remembered in a WeakMap); strings are compared by value.
 */

/** Deeper than any context field nests: past it, values count as different (no sharing, still correct). */
const MAX_DEPTH = 32

/** True when two JSON-like values are equal: same primitives, same arrays, same own keys with equal values. */
export function structurallyEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > MAX_DEPTH) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!structurallyEqual(a[i], b[i], depth + 1)) return false
    return true
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false
    if (!structurallyEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1))
      return false
  }
  return true
}

/** How many distinct values of one field are remembered as canonical. */
const RECENT_PER_FIELD = 8

/** Gives structurally equal context field values one identity (the first one seen). */
export class ContextCanon<C extends object> {
  /** Field object → its canonical equal, decided once per object. */
  readonly #seen = new WeakMap<object, object>()
  /** Per field name, the recent canonical values, newest first. */
  readonly #recent = new Map<string, object[]>()

  /**
   * The context with every object-valued field replaced by its canonical equal: the same object when
   * every field already is canonical, else a new one.
   */
  canonical(context: C): C {
    let out: Record<string, unknown> | undefined
    for (const key in context) {
      if (!Object.hasOwn(context, key)) continue
      const value: unknown = context[key]
      if (typeof value !== "object" || value === null) continue
      const canon = this.#field(key, value)
      if (canon !== value) {
        out ??= { ...(context as Record<string, unknown>) }
        out[key] = canon
      }
    }
    return (out as C | undefined) ?? context
  }

  /** The key/value list of a canonical context, in its own key order: equal lists mean equal contexts. */
  static inputs(context: object): unknown[] {
    const list: unknown[] = []
    for (const key in context)
      if (Object.hasOwn(context, key)) list.push(key, (context as Record<string, unknown>)[key])
    return list
  }

  #field(key: string, value: object): object {
    const known = this.#seen.get(value)
    if (known) return known
    let recent = this.#recent.get(key)
    if (!recent) {
      recent = []
      this.#recent.set(key, recent)
    }
    let canon = recent.find((r) => structurallyEqual(r, value))
    if (!canon) {
      canon = value
      recent.unshift(value)
      if (recent.length > RECENT_PER_FIELD) recent.pop()
    }
    this.#seen.set(value, canon)
    return canon
  }
}
