/**
 * The XML tool-calling dialect on the request side. The history always stores calls as tool_use blocks and
 * results as tool_result blocks; for a model that calls tools in its text, they are written back as the text
 * it would have produced (`<tool_name><param>value</param></tool_name>`) and as user text wrapped in
 * `<tool_result tool="NAME">`. Parameter values are raw text; values that are not strings carry JSON; a value of
 * several lines starts and ends on its own line, as the XML parser (src/providers/xml-parser.ts) reads it back.
 */
import type { Block, Message, ToolResultBlock, ToolUseBlock } from "../history/message.js"
import { textOf } from "../history/message.js"
import { TAG } from "../notices.js"
import { wrapTag } from "../tag-wrap.js"

/** A tool call as the XML text a model writes: one line per parameter, values unescaped. */
export function toolCallToXml(call: Pick<ToolUseBlock, "name" | "input">): string {
  const lines = [`<${call.name}>`]
  const input = call.input
  if (input !== null && typeof input === "object" && !Array.isArray(input)) {
    for (const [param, value] of Object.entries(input as Record<string, unknown>)) {
      if (value === undefined) continue
      const text = typeof value === "string" ? value : JSON.stringify(value)
      // A value of several lines goes on the lines between its tags (the parser drops one line break each side).
      lines.push(text.includes("\n") ? `<${param}>\n${text}\n</${param}>` : `<${param}>${text}</${param}>`)
    }
  }
  lines.push(`</${call.name}>`)
  return lines.join("\n")
}

/** A tool result as the user text the XML dialect uses; errors start with `Error:`. */
export function toolResultToXml(toolName: string, result: Pick<ToolResultBlock, "content" | "isError">): string {
  const text = textOf(result)
  const body = result.isError ? `Error: ${text}` : text
  // The result is outside text: it must not close the wrapper or pose as another of our tags.
  return wrapTag(TAG.toolResult, body, { attributes: { tool: toolName } })
}

/**
 * The history with tool_use and tool_result blocks written as text. Adjacent text blocks are joined with a
 * blank line; images from tool results follow their result's text.
 */
export function toXmlDialect(messages: readonly Message[]): Message[] {
  const names = new Map<string, string>()
  for (const m of messages) for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name)
  return messages.map((message) => {
    if (!message.content.some((b) => b.type === "tool_use" || b.type === "tool_result")) return message
    const content: Block[] = []
    for (const block of message.content) {
      if (block.type === "tool_use") appendText(content, toolCallToXml(block))
      else if (block.type === "tool_result") {
        appendText(content, toolResultToXml(names.get(block.toolUseId) ?? "unknown", block))
        if (typeof block.content !== "string") for (const b of block.content) if (b.type === "image") content.push(b)
      } else if (block.type === "text") appendText(content, block.text)
      else content.push(block)
    }
    return { ...message, content }
  })
}

function appendText(content: Block[], text: string): void {
  const last = content[content.length - 1]
  if (last?.type === "text") content[content.length - 1] = { type: "text", text: `${last.text}\n\n${text}` }
  else content.push({ type: "text", text })
}
