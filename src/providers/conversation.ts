/**
 * Reading a conversation from a file in any format the commands accept: promptline's message array, or a
 * provider's request body or bare history (detected, or named with `from`). A provider's request is read back
 * with its format's request decoder, so its system prompt and tools come along.
 */
import { readFile } from "node:fs/promises"
import type { Diagnostic } from "../diagnostics.js"
import { FileError, PromptlineError } from "../errors.js"
import { fsProblem } from "../fs-problem.js"
import { historyFromJson } from "../history/history-file.js"
import type { Message } from "../history/message.js"
import { parseJsonDocument } from "../json.js"
import type { EnabledTool } from "../tools/spec.js"
import { formatModule } from "./formats.js"
import { type ConversationFormat, detectConversation, wrap } from "./request-detect.js"

/** The model lent to a request body that names none. */
const NO_MODEL = "(none)"

/** A conversation read from a file. */
export interface Conversation {
  format: ConversationFormat
  /** What the format was recognized by (or that it was named). */
  evidence: string
  messages: Message[]
  /** A provider request's system prompt (absent for promptline's own format). */
  system?: string
  /** A provider request's tools. */
  tools?: EnabledTool[]
  /** The model a provider request named. */
  model?: string
  diagnostics: Diagnostic[]
}

/** Parses a conversation file's text; `from` forces a format instead of detecting it. */
export function parseConversation(raw: string, file: string, from?: ConversationFormat): Conversation {
  const data = parseJsonDocument(raw, file, "invalid-history")
  const guess = from
    ? { format: from, body: Array.isArray(data) ? wrap(from, data) : data, evidence: "named with --from" }
    : detectConversation(data)
  if (!guess) {
    const seen = Array.isArray(data)
      ? "an array"
      : data === null
        ? "null"
        : typeof data === "object"
          ? "an object"
          : typeof data
    throw new FileError(
      "invalid-history",
      file,
      `not a conversation: found ${seen}; expected promptline's message array or a provider request (a body with "messages", "input" or "contents", or one of those arrays)`,
    )
  }
  if (guess.format === "internal") {
    return {
      format: "internal",
      evidence: guess.evidence,
      messages: historyFromJson(guess.body, file),
      diagnostics: [],
    }
  }
  const module = formatModule(guess.format)
  let decoded: ReturnType<typeof module.decodeRequest>
  try {
    // A bare history names no model; the decoders want one, so the reader lends one and drops it again.
    decoded = module.decodeRequest(guess.body, { model: NO_MODEL })
  } catch (error) {
    if (error instanceof PromptlineError) {
      throw new FileError("invalid-history", file, `read as ${guess.format} (${guess.evidence}): ${error.message}`, {
        cause: error,
      })
    }
    throw error
  }
  const conversation: Conversation = {
    format: guess.format,
    evidence: guess.evidence,
    messages: decoded.messages,
    tools: [...decoded.prompt.tools],
    diagnostics: decoded.diagnostics,
  }
  if (decoded.prompt.text !== "") conversation.system = decoded.prompt.text
  if (decoded.model !== "" && decoded.model !== NO_MODEL) conversation.model = decoded.model
  return conversation
}

/** Reads and parses a conversation file. */
export async function readConversation(path: string, from?: ConversationFormat): Promise<Conversation> {
  let raw: string
  try {
    raw = await readFile(path, "utf8")
  } catch (error) {
    throw new FileError("file-unreadable", path, `cannot read the history: ${fsProblem(error)}`, { cause: error })
  }
  return parseConversation(raw, path, from)
}
