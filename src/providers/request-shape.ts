/**
 * The request side of every wire format as a server reads it (the replay server today, the gateway's request
 * decoders later): which top-level fields each format has, which message roles map to which internal role,
 * and what makes a body malformed. Each format's tables are checked against the official SDK's request types
 * at compile time by request-shape.test.ts (`npm run typecheck`), so a field or role the SDK gains or drops fails
 * `tsc` until the table follows. The SDKs are test clients (test/clients/): the build does not need them.
 */

/** How a server treats a request field: it must be there, it is read, or it is accepted and passed over. */
export type FieldUse = "required" | "read" | "accepted"

/** The side of the conversation a wire message or input item stands for, in the internal format's terms. */
export type WireSide = "system" | "user" | "assistant" | "tool-result"

/** The top-level fields of `body` that `known` does not list, sorted: accepted, ignored, and worth recording. */
export function unknownFields(body: Record<string, unknown>, known: Readonly<Record<string, FieldUse>>): string[] {
  return Object.keys(body)
    .filter((key) => !Object.hasOwn(known, key))
    .sort()
}

/** A plain object, or undefined. */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The text of a content value that is a string or a list of parts with a `text` field, parts joined by `\n`. */
export function partsText(content: unknown): string {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content
    .map((part) => recordOf(part)?.text)
    .filter((t): t is string => typeof t === "string" && t !== "")
    .join("\n")
}
