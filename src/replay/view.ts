import type { SpokenFormat } from "../providers/formats.js"
import { parseXmlToolResults } from "./xml-calls.js"

/**
 * What the replay server reads from a request, whatever its wire format: enough to check a
 * turn's expectations and to choose how the turn is rendered.
 */

/** The wire formats the replay server speaks: those with a wire shape of their own (DeepSeek speaks OpenAI Chat). */
export type ReplayFormat = SpokenFormat

/** One tool result the request carries in its last turn. */
export interface ToolResultView {
  /** The tool that produced it, when known (by name, or through the call id). */
  tool?: string
  callId?: string
  text: string
  isError?: boolean
}

/** A request reduced to what replay needs. */
export interface RequestView {
  format: ReplayFormat
  model: string
  stream: boolean
  /** The system prompt (instructions), joined. */
  system: string
  /** Names of the natively declared tools. */
  tools: string[]
  /** Native when the request declares tools; otherwise the turn's calls go out as XML text. */
  dialect: "native" | "xml"
  /** The user side after the last assistant message: its text and its tool results. */
  lastTurn: { text: string; toolResults: ToolResultView[] }
  /** Which reasoning output the request asked for. */
  reasoning: { visible: boolean; summary: boolean; encrypted: boolean }
  /** OpenAI Chat: whether a usage chunk was asked for (`stream_options.include_usage`). */
  includeUsage?: boolean
  /** OpenAI Responses: the response this one continues, and whether it may be stored. */
  previousResponseId?: string
  store?: boolean
}

/** A plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** An array, or an empty one. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** A string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined
}

/** The text of a content value that is a string or a list of parts with a `text` field. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content
  return asArray(content)
    .map((part) => asString(asRecord(part)?.text) ?? "")
    .filter((t) => t !== "")
    .join("\n")
}

/** A tool result as replay sees it: its text, its call id, and its tool when the call id is known. */
export function toolResultView(
  text: string,
  callId: string | undefined,
  known: ReadonlyMap<string, string>,
  isError = false,
): ToolResultView {
  const result: ToolResultView = { text }
  if (callId !== undefined) result.callId = callId
  const tool = callId === undefined ? undefined : known.get(callId)
  if (tool !== undefined) result.tool = tool
  if (isError) result.isError = true
  return result
}

/** The last turn of a request: its user texts joined, its tool results, and results written as XML text. */
export function lastTurnOf(texts: readonly string[], toolResults: ToolResultView[]): RequestView["lastTurn"] {
  const text = texts.join("\n\n")
  return { text, toolResults: [...toolResults, ...parseXmlToolResults(text)] }
}
