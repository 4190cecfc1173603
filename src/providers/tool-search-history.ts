/**
 * Tool searches in a history, for an API that does not run them: a server's tool search (a `tool_search` block,
 * the call and its result in one) becomes a call of promptline's search tool and its result in the next user
 * message, and a tool result's references to deferred tools become a line of text. The gateway's own search loop
 * shows the upstream its searches in exactly this form, so a client's next request, carrying the searches back,
 * gives the upstream the prefix it already saw.
 */
import type { Block, Message, ToolResultBlock, ToolSearchBlock, ToolUseBlock } from "../history/message.js"
import { toolSearchResult, toolsLoadedNote } from "../notices.js"
import { SEARCH_TOOLS_NAME } from "../tools/search/index.js"
import { obj, str } from "./stream.js"

/** The words a tool search's input searches for (`query`, or the regex search's `pattern`). */
export function searchQuery(input: unknown): string {
  const record = obj(input)
  return str(record?.query) ?? str(record?.pattern) ?? ""
}

/** A tool search as a call of promptline's search tool. */
function searchAsCall(block: ToolSearchBlock): ToolUseBlock {
  return { type: "tool_use", id: block.id, name: SEARCH_TOOLS_NAME, input: block.input }
}

/** A tool search's result as the result of that call: the tools found (now in the tool list), or why none. */
function searchAsResult(block: ToolSearchBlock): ToolResultBlock {
  return {
    type: "tool_result",
    toolUseId: block.id,
    content: toolSearchResult(searchQuery(block.input), block.found, block.error),
    ...(block.error !== undefined ? { isError: true } : {}),
  }
}

/** A tool result whose references are written as a line of text after its content. */
function referencesAsText(block: ToolResultBlock): ToolResultBlock {
  const { references, ...rest } = block
  if (references === undefined) return block
  if (references.length === 0) return rest
  const note = { type: "text" as const, text: toolsLoadedNote(references) }
  const content =
    typeof rest.content === "string"
      ? rest.content === ""
        ? []
        : [{ type: "text" as const, text: rest.content }]
      : rest.content
  return { ...rest, content: [...content, note] }
}

/** Whether a history holds anything `lowerToolSearches` rewrites. */
function holdsSearches(messages: readonly Message[]): boolean {
  return messages.some((m) =>
    m.content.some((b) => b.type === "tool_search" || (b.type === "tool_result" && b.references !== undefined)),
  )
}

/**
 * The history with every tool search written as a call and its result, and references in tool results as text.
 * An assistant message is split after its searches: the calls end it, their results follow in a user message (the
 * next user message when the assistant message ended with them), and the rest of the answer goes on in a new
 * assistant message. A history without searches or references comes back as it is.
 */
export function lowerToolSearches(messages: readonly Message[]): readonly Message[] {
  if (!holdsSearches(messages)) return messages
  const out: Message[] = []
  /** Results of searches that ended an assistant message, for the user message after it. */
  let pending: ToolResultBlock[] = []
  for (const message of messages) {
    const content = message.content.map((b) => (b.type === "tool_result" ? referencesAsText(b) : b))
    if (message.role !== "assistant") {
      if (pending.length > 0 && message.role === "user") {
        out.push({ ...message, content: [...pending, ...content] })
        pending = []
        continue
      }
      flush(out, pending, message.id, message.ts)
      pending = []
      out.push({ ...message, content })
      continue
    }
    flush(out, pending, message.id, message.ts)
    pending = []
    let part: Block[] = []
    let results: ToolResultBlock[] = []
    let n = 0
    const emit = () => {
      out.push({ ...message, id: n === 0 ? message.id : `${message.id}.${n}`, content: part })
      n++
      part = []
    }
    for (const block of content) {
      if (block.type === "tool_search") {
        part.push(searchAsCall(block))
        results.push(searchAsResult(block))
        continue
      }
      if (results.length > 0) {
        emit()
        out.push({ id: `${message.id}.${n}.results`, role: "user", content: results, ts: message.ts })
        results = []
      }
      part.push(block)
    }
    if (part.length > 0) emit()
    pending = results
  }
  flush(out, pending, "end", out.at(-1)?.ts ?? 0)
  return out
}

/** Results still waiting for a user message get one of their own. */
function flush(out: Message[], pending: ToolResultBlock[], id: string, ts: number): void {
  if (pending.length > 0) out.push({ id: `${id}.results`, role: "user", content: pending, ts })
}
