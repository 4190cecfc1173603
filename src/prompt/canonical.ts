/**
 * Memoization by content. The builder's stages are keyed by the identity of the context fields they
 * read; a context read afresh (from JSON, another process, a server request) shares no objects with the
 * last one, so it would rebuild everything. `ContextCanon` maps each object-valued field to the first
 * value seen that is structurally equal to it, so equal content gets one identity and the stages hit.
 * Each field object is compared once (remembered in a WeakMap); strings are compared by value.
 */

/** Deeper than any context field nests: past it, values count as different (no sharing, still correct). */
const MAX_DEPTH = 32

const { isArray } = Array
const { getPrototypeOf, hasOwn } = Object

/**
 * True when two JSON-like values are equal: same primitives, same arrays, same own keys with equal values.
 * One pass over both values, allocating nothing; it runs on every field of every context read afresh.
 */
export function structurallyEqual(a: unknown, b: unknown, depth = 0): boolean {
  return a === b || equalObjects(a, b, depth)
}

/** The object half of `structurallyEqual`: called only when `a !== b`. */
function equalObjects(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth > MAX_DEPTH) return false
  if (isArray(a)) {
    if (!isArray(b)) return false
    const n = a.length
    if (n !== b.length) return false
    for (let i = 0; i < n; i++) {
      const x: unknown = a[i]
      const y: unknown = b[i]
      if (x !== y && !equalObjects(x, y, depth + 1)) return false
    }
    return true
  }
  if (isArray(b) || getPrototypeOf(a) !== getPrototypeOf(b)) return false
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  // Inherited enumerable keys are on both sides (same prototype) and fail `hasOwn`: a safe miss.
  let keys = 0
  for (const key in left) {
    if (!hasOwn(right, key)) return false
    const x = left[key]
    const y = right[key]
    if (x !== y && !equalObjects(x, y, depth + 1)) return false
    keys++
  }
  for (const _ in right) keys--
  return keys === 0
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
