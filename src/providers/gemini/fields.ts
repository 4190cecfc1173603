/**
 * Reading a Gemini REST body field by field: each field under its camelCase or snake_case name, and a
 * `ProviderError` (`invalid-request`) that names the JSON path when a field has the wrong shape.
 */
import { ProviderError } from "../errors.js"
import { snakeCase } from "./request-shape.js"

/** A JSON object of a request body. */
export type RecordOf = Record<string, unknown>

/** The error for a malformed request: the JSON path at fault and what is wrong with it. */
export function invalidRequest(path: string, problem: string): ProviderError {
  return new ProviderError("invalid-request", `${path}: ${problem}`, { status: 400 })
}

/** `value` as a JSON object, or an error naming `path`. */
export function recordAt(value: unknown, path: string): RecordOf {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidRequest(path, "must be an object")
  return value as RecordOf
}

/** The key a field is spelled with in `record` (camelCase first, then snake_case), or undefined when absent. */
export function keyIn(record: RecordOf, camel: string): string | undefined {
  if (Object.hasOwn(record, camel) && record[camel] !== undefined) return camel
  const snake = snakeCase(camel)
  return Object.hasOwn(record, snake) && record[snake] !== undefined ? snake : undefined
}

/** A string field (either spelling); an error naming the path when it is there but not a string. */
export function stringAt(record: RecordOf, camel: string, path: string): string | undefined {
  const key = keyIn(record, camel)
  if (key === undefined) return undefined
  const value = record[key]
  if (typeof value !== "string") throw invalidRequest(`${path}.${key}`, "must be a string")
  return value
}

/** A number field (either spelling); an error naming the path when it is there but not a number. */
export function numberAt(record: RecordOf, camel: string, path: string): number | undefined {
  const key = keyIn(record, camel)
  if (key === undefined) return undefined
  const value = record[key]
  if (typeof value !== "number" || !Number.isFinite(value)) throw invalidRequest(`${path}.${key}`, "must be a number")
  return value
}

/** The keys of `record` whose camelCase form is not in `known`, each as `prefix.key`. */
export function otherKeys(record: RecordOf, known: ReadonlySet<string>, prefix: string): string[] {
  return Object.keys(record)
    .filter((key) => !known.has(camelCase(key)))
    .map((key) => (prefix === "" ? key : `${prefix}.${key}`))
}

/** `snake_case` → `camelCase` (camelCase names pass unchanged). */
export function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}
