/**
 * A PromptContext check that needs no zod, for the contexts gather and the CLI make (docs/decisions.md,
 * "A quick context check without zod"): loading zod and building the schema cost a command more than the rest of its
 * work. It vouches only for plain JSON-like values made of the common fields and returns what the zod schema
 * would (defaults filled in, keys in the schema's order); for anything else (an unusual field, a doubtful value,
 * an error to report) it returns undefined and the caller asks zod, so errors read as before. The figures
 * (`npm run bench -- shadows`, bench/results.md): the first check in a fresh process of the built package takes
 * 3.4 ms here against 96.9 ms through zod (loading it and building the schema); warm, zod checks faster (27 against
 * 42 µs), so only the first check of a process gains, which is every CLI command's. prompt-context.ts is its only
 * user; quick-parse.test.ts checks zod gives the same data for every value it vouches for.
 */

/** A reader's answer: the parsed value, or FAIL when the quick check does not vouch for the input. */
const FAIL = Symbol("fail")
type Reader = (value: unknown) => unknown

interface Field {
  key: string
  read: Reader
  /** The value when the key is absent; absent and no default: the key is optional when `optional`. */
  fallback?: () => unknown
  optional?: boolean
}

/** A plain object (object literal or JSON.parse result) with no symbol keys. */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0
}

/** A strict object of the given fields, in their order. */
function object(fields: Field[]): Reader {
  const known = new Set(fields.map((f) => f.key))
  return (value) => {
    if (!isPlain(value)) return FAIL
    for (const key of Object.keys(value)) if (!known.has(key) || value[key] === undefined) return FAIL
    const out: Record<string, unknown> = {}
    for (const field of fields) {
      if (Object.hasOwn(value, field.key)) {
        const read = field.read(value[field.key])
        if (read === FAIL) return FAIL
        out[field.key] = read
      } else if (field.fallback) out[field.key] = field.fallback()
      else if (!field.optional) return FAIL
    }
    return out
  }
}

const req = (key: string, read: Reader): Field => ({ key, read })
const opt = (key: string, read: Reader): Field => ({ key, read, optional: true })
const withDefault = (key: string, read: Reader, fallback: () => unknown): Field => ({ key, read, fallback })
/** A field the quick check leaves to zod whenever it is present. */
const toZod = (key: string): Field => ({ key, read: () => FAIL, optional: true })

const string: Reader = (v) => (typeof v === "string" ? v : FAIL)
const nonEmpty: Reader = (v) => (typeof v === "string" && v.length > 0 ? v : FAIL)
const boolean: Reader = (v) => (typeof v === "boolean" ? v : FAIL)
const oneOf =
  (...values: string[]): Reader =>
  (v) =>
    typeof v === "string" && values.includes(v) ? v : FAIL
const matching =
  (pattern: RegExp): Reader =>
  (v) =>
    typeof v === "string" && pattern.test(v) ? v : FAIL
const arrayOf =
  (item: Reader, min = 0): Reader =>
  (v) => {
    if (!Array.isArray(v) || v.length < min) return FAIL
    const out: unknown[] = []
    for (let i = 0; i < v.length; i++) {
      if (!Object.hasOwn(v, i)) return FAIL
      const read = item(v[i])
      if (read === FAIL) return FAIL
      out.push(read)
    }
    return out
  }
/** The empty list only (a non-empty one is left to zod). */
const emptyList: Reader = (v) => (Array.isArray(v) && v.length === 0 ? [] : FAIL)

const activation: Reader = (v) => {
  if (!isPlain(v)) return FAIL
  switch (v.when) {
    case "always":
    case "manual":
      return object([req("when", string)])(v)
    case "paths":
      return object([req("when", string), req("globs", arrayOf(nonEmpty, 1))])(v)
    case "requested":
      return object([req("when", string), req("description", nonEmpty)])(v)
    default:
      return FAIL
  }
}

const instructionFile = object([
  req("path", nonEmpty),
  req("convention", nonEmpty),
  req("scope", oneOf("user", "project")),
  req("text", string),
  withDefault("activation", activation, () => ({ when: "always" })),
  opt("base", string),
  opt("truncated", boolean),
  opt("nested", boolean),
])

const skill = object([
  req("name", nonEmpty),
  req("description", nonEmpty),
  req("path", nonEmpty),
  withDefault("scope", oneOf("user", "project"), () => "project"),
])

const gate = opt

/** The fields of the context schema, in its order (a test checks the order against the schema). */
export const QUICK_CONTEXT_FIELDS: Field[] = [
  req("version", (v) => (v === 1 ? 1 : FAIL)),
  req("cwd", nonEmpty),
  req(
    "platform",
    object([req("os", nonEmpty), opt("osVersion", string), req("shell", nonEmpty), req("home", nonEmpty)]),
  ),
  req("date", matching(/^\d{4}-\d{2}-\d{2}$/)),
  req("model", object([req("id", nonEmpty), req("provider", nonEmpty)])),
  withDefault("mode", oneOf("act", "plan"), () => "act"),
  withDefault("audience", oneOf("primary", "subagent"), () => "primary"),
  withDefault("interactive", boolean, () => true),
  withDefault("autonomy", oneOf("ask", "auto"), () => "ask"),
  withDefault(
    "features",
    object([
      gate("browser", boolean),
      gate("webTools", boolean),
      gate("subagents", boolean),
      gate("taskProgress", boolean),
    ]),
    () => ({}),
  ),
  toZod("tools"),
  opt("variant", string),
  opt("toolCalling", oneOf("native", "xml")),
  withDefault(
    "agent",
    object([withDefault("name", nonEmpty, () => "promptline"), opt("identity", string), opt("docs", arrayOf(string))]),
    () => ({ name: "promptline" }),
  ),
  opt("git", object([req("root", string), opt("branch", string), opt("status", string)])),
  withDefault("instructions", arrayOf(instructionFile), () => []),
  withDefault("skills", arrayOf(skill), () => []),
  withDefault("mcpServers", emptyList, () => []),
  opt("customPrompt", object([req("mode", oneOf("replace", "append")), req("text", string)])),
  withDefault("placement", oneOf("system", "context-message"), () => "context-message"),
  opt("language", string),
  toZod("browser"),
  toZod("overrides"),
]

const context = object(QUICK_CONTEXT_FIELDS)

/**
 * The value zod's context schema gives for `value`, when the quick check vouches for it; undefined when it
 * does not (zod must decide: the value is unusual, or wrong).
 */
export function quickParseContext(value: unknown): unknown {
  const out = context(value)
  return out === FAIL ? undefined : out
}
