import type { ScriptToolCall } from "./script.js"

/**
 * Writes a tool call in the XML dialect: `<tool_name>`, one `<param>value</param>` per argument,
 * `</tool_name>`. Strings go raw (never escaped); numbers, booleans, objects and arrays as JSON text.
 */
export function renderXmlCall(call: Pick<ScriptToolCall, "name" | "input">): string {
  const lines = [`<${call.name}>`]
  for (const [param, value] of Object.entries(call.input)) {
    const raw = typeof value === "string" ? value : JSON.stringify(value)
    lines.push(`<${param}>${raw}</${param}>`)
  }
  lines.push(`</${call.name}>`)
  return lines.join("\n")
}

/** The model's text for a turn in the XML dialect: its prose, then each call, separated by blank lines. */
export function xmlTurnText(
  text: string | undefined,
  calls: readonly Pick<ScriptToolCall, "name" | "input">[],
): string {
  return [text ?? "", ...calls.map(renderXmlCall)].filter((part) => part !== "").join("\n\n")
}

/** One tool result written in the XML dialect's user text: `<tool_result tool="NAME">…</tool_result>`. */
export interface XmlToolResult {
  tool: string
  text: string
}

/**
 * Finds the tool results written as `<tool_result tool="NAME">\n…\n</tool_result>` in user text.
 * A result ends at the last closing tag before the next result starts, so results may quote the tag.
 */
export function parseXmlToolResults(text: string): XmlToolResult[] {
  const opening = /<tool_result tool="([^"]*)">/g
  const starts: { tool: string; at: number; body: number }[] = []
  for (let m = opening.exec(text); m !== null; m = opening.exec(text)) {
    starts.push({ tool: m[1]!, at: m.index, body: m.index + m[0].length })
  }
  const results: XmlToolResult[] = []
  starts.forEach((start, i) => {
    const limit = starts[i + 1]?.at ?? text.length
    const close = text.lastIndexOf("</tool_result>", limit)
    const end = close >= start.body ? close : limit
    results.push({ tool: start.tool, text: text.slice(start.body, end).replace(/^\n/, "").replace(/\n$/, "") })
  })
  return results
}
