import { z } from "zod"
import { fieldPath } from "../../field-issues.js"

/**
 * Argument schemas shared by the executors. Values may come from native tool calls (typed JSON) or
 * from the XML dialect (text), so numbers, booleans, arrays and objects also accept their JSON text.
 */

function fromJsonText(value: unknown): unknown {
  if (typeof value !== "string") return value
  const trimmed = value.trim()
  if (trimmed === "") return value
  try {
    return JSON.parse(trimmed)
  } catch {
    return value
  }
}

/** A required path-like string: non-empty after trimming. */
export const pathArg = z.string({ error: "expected a string" }).trim().min(1, "must not be empty")

/** A positive whole number, also given as text (`"12"`). */
export const positiveIntArg = z.preprocess(
  (v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ error: "expected a whole number" }).int("expected a whole number").min(1, "must be at least 1"),
)

/** A positive number, also given as text (`"1.5"`). */
export const positiveNumberArg = z.preprocess(
  (v) => (typeof v === "string" && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
  z.number({ error: "expected a number" }).positive("must be greater than 0"),
)

/** A boolean, also given as text (`"true"`, `"false"`). */
export const booleanArg = z.preprocess(
  (v) => {
    if (typeof v !== "string") return v
    const t = v.trim().toLowerCase()
    return t === "true" ? true : t === "false" ? false : v
  },
  z.boolean({ error: "expected true or false" }),
)

/** A list of strings, also given as JSON text. */
export const stringListArg = z.preprocess(fromJsonText, z.array(z.string(), { error: "expected a list of strings" }))

/** A JSON object, also given as JSON text. */
export const objectArg = z.preprocess(
  fromJsonText,
  z.record(z.string(), z.unknown(), { error: "expected a JSON object" }),
)

/** The optional task_progress checklist many tools carry; executors ignore it, the loop reads it. */
export const taskProgressArg = z.string().optional()

/** Validates a call's input; on failure returns one message naming every bad parameter. */
export function validateArgs<S extends z.ZodType>(
  tool: string,
  schema: S,
  input: unknown,
): { ok: true; value: z.output<S> } | { ok: false; message: string } {
  const value = input === undefined || input === null ? {} : input
  if (typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: `Invalid arguments for ${tool}: expected an object of named parameters.` }
  }
  const result = schema.safeParse(value)
  if (result.success) return { ok: true, value: result.data }
  const problems = result.error.issues.map((issue) => {
    const [head, ...rest] = issue.path
    const name = fieldPath(issue.path) || "(arguments)"
    if (rest.length === 0 && head !== undefined && (value as Record<PropertyKey, unknown>)[head] === undefined) {
      return `missing required parameter '${name}'`
    }
    return `parameter '${name}': ${issue.message}`
  })
  return { ok: false, message: `Invalid arguments for ${tool}: ${problems.join("; ")}.` }
}
