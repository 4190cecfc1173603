/**
 * Frontmatter made only of one-line `key: value` fields, read without the YAML parser. Loading `yaml` costs a
 * first gather tens of milliseconds, and the frontmatter of rule files is nearly always this simple
 * (`globs: src/**`, `alwaysApply: true`, `paths: ["**\/*.ts"]`, `description: …`). `plainFields` answers
 * only for blocks whose YAML 1.2 reading it knows for certain, and gives exactly what YAML would give
 * (`doc.toJS()`); any other block gives undefined and goes to YAML. The tests compare both on generated blocks.
 * The figures (`npm run bench -- shadows`, bench/results.md): ten rule-file blocks read the first time in a fresh
 * process take 0.7 ms against 56 ms for importing `yaml` and parsing them (warm: 10 against 221 µs).
 * frontmatter.ts is its only user.
 */

/** Characters that YAML reads specially at the start of a plain value (indicators, quotes, tags, anchors). */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/
/** Anything that is not a printable character on one line (tabs included: they are left to YAML). */
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\ufeff\u2028\u2029]|\p{Cs}/u
/** A field name YAML reads as the same string. */
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/
/** Values YAML's core schema reads as null or booleans. */
const NULLS = new Set(["~", "null", "Null", "NULL"])
const BOOLEANS = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
])
/** A plain value that might be a number (`1`, `-2`, `.5`, `0x1f`, `.inf`): left to YAML. */
const NUMBER_LIKE = /^[-+]?[.0-9]/

/** A one-line plain value as YAML reads it, or undefined when unsure. */
function plainValue(raw: string): unknown {
  const v = raw.trimEnd()
  if (v === "" || NULLS.has(v)) return null
  const bool = BOOLEANS.get(v)
  if (bool !== undefined) return bool
  if (INDICATOR.test(v) || NUMBER_LIKE.test(v)) return undefined
  // `: ` would start a nested mapping, ` #` a comment, and a value ending in `:` is a key.
  if (/:(?: |$)/.test(v) || v.includes(" #")) return undefined
  return v
}

/** A quoted value without escapes, or undefined. */
function quoted(v: string): string | undefined {
  const m = /^"([^"\\]*)"$/.exec(v) ?? /^'([^']*)'$/.exec(v)
  return m ? m[1] : undefined
}

/** A flow list of quoted strings or simple words (`["a", 'b', c]`), or undefined. */
function flowList(v: string): string[] | undefined {
  const m = /^\[(.*)\]$/.exec(v)
  if (!m) return undefined
  const inner = m[1]!.trim()
  if (inner === "") return []
  const items: string[] = []
  for (const part of inner.split(",")) {
    const item = part.trim()
    const text = quoted(item) ?? (/^[A-Za-z_/][\w./-]*$/.test(item) ? item : undefined)
    if (text === undefined || (text === item && (NULLS.has(item) || BOOLEANS.has(item)))) return undefined
    // A quoted item holding a comma was split above: the pieces no longer parse as quoted strings.
    items.push(text)
  }
  return items
}

/** The fields of a frontmatter block when it is plain one-line fields only; undefined otherwise. */
export function plainFields(block: string): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {}
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    if (UNPRINTABLE.test(line)) return undefined
    const m = /^([^:\s]+):(?: +(.*))?$/.exec(line)
    if (!m) return undefined
    const key = m[1]!
    if (!KEY.test(key) || NULLS.has(key) || BOOLEANS.has(key) || key === "__proto__" || Object.hasOwn(fields, key))
      return undefined
    const raw = (m[2] ?? "").trimEnd()
    let value: unknown
    if (raw.startsWith('"') || raw.startsWith("'")) value = quoted(raw)
    else if (raw.startsWith("[")) value = flowList(raw)
    else value = plainValue(raw)
    if (value === undefined) return undefined
    fields[key] = value
  }
  return fields
}
