import type { GatherEntry } from "../context/report.js"
import { type Diagnostic, formatDiagnostic } from "../diagnostics.js"
import type { InspectReport } from "./report.js"
import { bar, cell, num, painter, pct, right, type Style, wrap } from "./text.js"

/** Options of the terminal report. */
export interface TextOptions {
  /** ANSI colors (only on a terminal). Default false. */
  color?: boolean
  /** Columns; default 100. */
  width?: number
}

const BAR = 24

function describeEntry(e: GatherEntry & { tokens?: number }): string {
  const parts: string[] = []
  if (e.convention) parts.push(e.convention)
  if (e.tokens !== undefined) parts.push(`${num(e.tokens)} tokens`)
  if (e.globs) parts.push(`globs: ${e.globs.join(", ")}`)
  if (e.reason) parts.push(e.reason)
  if (e.detail) parts.push(e.detail)
  return parts.join(" · ")
}

/** Renders the inspect report for a terminal: every line fits in `width` columns (100 by default). */
export function renderText(report: InspectReport, options: TextOptions = {}): string {
  const width = options.width ?? 100
  const paint = painter(options.color === true)
  const out: string[] = []
  const heading = (text: string) => out.push("", paint("bold", text))
  const para = (text: string, indent = "  ", style?: Style) => {
    for (const line of wrap(text, width - indent.length, "  ")) out.push(indent + (style ? paint(style, line) : line))
  }
  const { model, totals } = report

  out.push(paint("bold", cell(`promptline inspect: ${model.id}`, width).trimEnd()))
  para(
    `${model.provider} · ${model.family} family · variant ${report.variant} · ${report.toolCalling} tool calls · ${model.wireFormat} wire format · placement ${report.placement}`,
    "",
  )
  para(`Tokens: ${report.counting.description}`, "")

  heading(`Prompt: ${num(totals.total)} tokens, ${pct(totals.windowShare)} of the ${num(totals.window)}-token window`)
  const parts = [
    ...(totals.tools > 0 ? [`tool definitions ${num(totals.tools)}`] : []),
    `system prompt ${num(totals.system)}`,
    ...(report.contextMessage !== undefined ? [`context message ${num(totals.contextMessage)}`] : []),
  ]
  para(parts.join(" + "))

  // Sections: name, where, bar, tokens, share; 2 + 30 + 1 + 15 + 1 + 24 + 1 + 9 + 1 + 7 = 91 columns.
  heading("Sections (and tool definitions), in the order they are sent")
  const idWidth = Math.min(30, width - 60)
  out.push(
    paint(
      "dim",
      `  ${cell("part", idWidth)} ${cell("goes to", 15)} ${" ".repeat(BAR)} ${right("tokens", 9)} ${right("share", 7)}`,
    ),
  )
  for (const s of report.segments) {
    const label = s.kind === "tools" ? `tools (${report.tools.length} definitions)` : s.id
    const where = s.placement === "context-message" ? "context message" : s.placement
    out.push(
      `  ${cell(label, idWidth)} ${cell(where, 15)} ${paint("cyan", bar(s.share, BAR))} ${right(num(s.tokens), 9)} ${right(pct(s.share), 7)}`,
    )
  }

  const native = report.tools.some((t) => t.where === "definition")
  heading(
    native
      ? `Tools: ${report.tools.length} native definitions (${model.wireFormat})`
      : `Tools: ${report.tools.length}, documented in the tool-use section (XML dialect)`,
  )
  if (report.toolsPreamble > 0)
    para(`The provider adds ${num(report.toolsPreamble)} tokens once when any tool is defined.`)
  if (report.tools.length === 0) out.push("  none")
  const nameWidth = Math.min(40, width - 40)
  for (const t of report.tools) {
    const source = t.mcp ? `MCP ${t.mcp.server}/${t.mcp.tool}` : ""
    out.push(
      `  ${cell(t.name, nameWidth)} ${cell(t.kind, 14)} ${right(num(t.tokens), 7)}  ${cell(source, width - nameWidth - 27).trimEnd()}`.trimEnd(),
    )
  }

  const search = report.toolSearch
  if (search) {
    heading(`Deferred tools: ${search.deferred.length}, found and called through the search tools`)
    para(
      `Loaded they would take ${num(search.deferredTokens)} tokens; the search and call tools take ${num(search.searchToolsTokens)}, so each request saves ${num(search.savedTokens)}.`,
    )
    for (const t of search.deferred) {
      const source = t.mcp ? `MCP ${t.mcp.server}/${t.mcp.tool}` : ""
      out.push(
        `  ${cell(t.name, nameWidth)} ${cell(t.kind, 14)} ${right(num(t.tokens), 7)}  ${cell(source, width - nameWidth - 27).trimEnd()}`.trimEnd(),
      )
    }
  }

  const instructions = report.instructions
  heading(
    `Instruction files (${instructions.entries.length}${instructions.source === "gather" ? " considered" : " in the context"})`,
  )
  if (instructions.note) para(instructions.note, "  ", "dim")
  if (instructions.entries.length === 0) out.push("  none")
  const pathWidth = Math.min(36, Math.max(8, ...instructions.entries.map((e) => e.path.length)))
  for (const e of instructions.entries) {
    const lead = `  ${cell(e.status, 11)} ${cell(e.path, pathWidth)}  `
    const pad = " ".repeat(lead.length)
    const text = wrap(describeEntry(e), width - lead.length)
    out.push(...text.map((l, i) => (i === 0 ? lead + l : pad + l).trimEnd()))
  }
  for (const [title, entries] of [
    ["Skills", report.skills],
    ["MCP servers", report.mcpServers],
  ] as const) {
    if (!entries || entries.length === 0) continue
    const counts = new Map<string, number>()
    for (const e of entries) counts.set(e.status, (counts.get(e.status) ?? 0) + 1)
    para(`${title}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")} (promptline doctor lists them)`)
  }

  const { cache } = report
  heading("Cache layout")
  para(`Prefix hash ${cache.hash.slice(0, 16)}… (tools, then the system prompt; equal hash ⇔ the cache can hit)`)
  const min = cache.minTokens === undefined ? "" : `; the provider caches from ${num(cache.minTokens)}`
  para(`Cached prefix, in the order the provider caches it: ${num(cache.prefixTokens)} tokens${min}`)
  for (const [i, item] of cache.prefix.entries()) {
    const label = item.kind === "tools" ? `tool definitions (${report.tools.length})` : `system: ${item.id}`
    const note = item.volatile ? paint("yellow", "  volatile: moves the prefix when it changes") : ""
    out.push(`    ${right(String(i + 1), 2)}. ${cell(label, 36)} ${right(num(item.tokens), 8)}${note}`)
  }
  const toMessage = cache.volatile.filter((v) => v.placement === "context-message")
  const toSystem = cache.volatile.filter((v) => v.placement === "system")
  if (toMessage.length > 0)
    para(
      `Volatile, sent in the context message (after the cached prefix): ${toMessage.map((v) => `${v.id} (${num(v.tokens)})`).join(", ")}`,
    )
  if (toSystem.length > 0)
    para(
      `Volatile, inside the system prompt (placement system): ${toSystem.map((v) => `${v.id} (${num(v.tokens)})`).join(", ")}`,
    )
  if (cache.volatile.length === 0) para("No volatile sections.")

  const line = (d: Diagnostic) => {
    const style: Style = d.level === "error" ? "red" : d.level === "warning" ? "yellow" : "dim"
    for (const l of wrap(formatDiagnostic(d), width - 2, "    ")) out.push(`  ${paint(style, l)}`)
  }
  heading(`Warnings (${report.warnings.length})`)
  if (report.warnings.length === 0) out.push("  none")
  for (const d of report.warnings) line(d)
  const shown = report.diagnostics.filter((d) => d.level !== "info")
  if (shown.length > 0) {
    heading(`Diagnostics (${shown.length})`)
    for (const d of shown) line(d)
  }
  return `${out.join("\n")}\n`
}
