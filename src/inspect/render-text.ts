import { formatDiagnostic } from "../diagnostics.js"
import { calibrationLine, exactRows } from "./calibration-text.js"
import { windowLines } from "./render-window-text.js"
import type { InspectReport, InstructionLine } from "./report.js"
import { shortenAll } from "./shorten.js"
import { bar, cell, MIN_TEXT_WIDTH, num, painter, pct, right, type Style, wrap } from "./text.js"
import { warningList } from "./warning-list.js"

/** Options of the terminal report. */
export interface TextOptions {
  /** ANSI colors (only on a terminal). Default false. */
  color?: boolean
  /** Columns (the terminal's width); default 100, at least `MIN_TEXT_WIDTH`. */
  width?: number
}

export { MIN_TEXT_WIDTH }

const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n))

function describeEntry(e: InstructionLine): string {
  const parts: string[] = []
  if (e.convention) parts.push(e.convention)
  if (e.tokens !== undefined) parts.push(`${num(e.tokens)} tokens`)
  if (e.globs) parts.push(`globs: ${e.globs.join(", ")}`)
  if (e.reason) parts.push(e.reason)
  if (e.detail) parts.push(e.detail)
  return parts.join(" · ")
}

/**
 * Renders the inspect report for a terminal: every line fits in `width` columns (100 by default, at least
 * `MIN_TEXT_WIDTH`), and paths and names cut to fit stay distinct.
 */
export function renderText(report: InspectReport, options: TextOptions = {}): string {
  const width = Math.max(MIN_TEXT_WIDTH, Math.floor(options.width ?? 100))
  const paint = painter(options.color === true)
  const out: string[] = []
  const heading = (text: string) => out.push("", ...wrap(text, width, "  ").map((l) => paint("bold", l)))
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
  const calibration = calibrationLine(report.calibrations)
  if (calibration) para(calibration, "")
  if (report.exact) {
    const exact = exactRows(report.exact)
    heading(exact.heading)
    if (exact.rows.length > 0) {
      const w = clamp(width - 50, 8, 20)
      out.push(
        paint(
          "dim",
          `  ${cell("part", w)} ${right("exact", 10)} ${right("estimated", 10)} ${right("delta", 9)} ${right("ratio", 7)}`,
        ),
      )
      for (const r of exact.rows)
        out.push(
          `  ${cell(r.part, w)} ${right(num(r.exact), 10)} ${right(num(r.estimated), 10)} ${right(r.delta, 9)} ${right(r.ratio, 7)}`,
        )
    }
    if (exact.note) para(exact.note, "  ", report.exact.status === "unavailable" ? "yellow" : undefined)
  }

  heading(`Prompt: ${num(totals.total)} tokens, ${pct(totals.windowShare)} of the ${num(totals.window)}-token window`)
  const parts = [
    ...(totals.tools > 0 ? [`tool definitions ${num(totals.tools)}`] : []),
    `system prompt ${num(totals.system)}`,
    ...(report.contextMessage !== undefined ? [`context message ${num(totals.contextMessage)}`] : []),
  ]
  para(parts.join(" + "))

  const view = report.window
  const used = view.history ? "prompt and conversation" : "prompt"
  heading(
    `Context window: ${num(view.used)} of ${num(view.window)} tokens (${pct(view.used / view.window)}) for the ${used}, ${num(view.free)} free`,
  )
  out.push(...windowLines(view, width, paint))
  if (view.history)
    para(`Conversation: ${num(view.history.messages)} messages, ${num(view.history.tokens)} tokens (--history).`)

  // Sections: part, where, bar, tokens, share: 2 + id + 1 + 15 + 1 + bar + 1 + 9 + 1 + 7 columns.
  heading("Sections (and tool definitions), in the order they are sent")
  const room = width - 37
  const idWidth = clamp(room - 24, 17, 48)
  const barWidth = Math.min(40, room - idWidth)
  const labelOf = (s: InspectReport["segments"][number]) =>
    s.kind === "tools" ? `tools (${report.tools.length} definitions)` : s.id
  const labels = shortenAll(report.segments.map(labelOf), idWidth)
  out.push(
    paint(
      "dim",
      `  ${cell("part", idWidth)} ${cell("goes to", 15)} ${" ".repeat(barWidth)} ${right("tokens", 9)} ${right("share", 7)}`,
    ),
  )
  for (const s of report.segments) {
    const where = s.placement === "context-message" ? "context message" : s.placement
    out.push(
      `  ${cell(labels.get(labelOf(s))!, idWidth)} ${cell(where, 15)} ${paint("cyan", bar(s.share, barWidth))} ${right(num(s.tokens), 9)} ${right(pct(s.share), 7)}`,
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
  // Name, kind, tokens, source: 2 + name + 1 + 14 + 1 + 7 + 2 + source columns.
  const longest = Math.max(0, ...report.tools.map((t) => [...t.name].length))
  const nameWidth = clamp(longest, 20, Math.min(48, width - 35))
  const sourceWidth = width - nameWidth - 27
  const names = shortenAll(
    report.tools.map((t) => t.name),
    nameWidth,
  )
  const sources = shortenAll(
    report.tools.flatMap((t) => (t.mcp ? [`MCP ${t.mcp.server}/${t.mcp.tool}`] : [])),
    sourceWidth,
  )
  for (const t of report.tools) {
    const source = t.mcp ? sources.get(`MCP ${t.mcp.server}/${t.mcp.tool}`)! : ""
    out.push(
      `  ${cell(names.get(t.name)!, nameWidth)} ${cell(t.kind, 14)} ${right(num(t.tokens), 7)}  ${source}`.trimEnd(),
    )
  }
  for (const server of report.mcpServers.filter((s) => s.tools > 0))
    para(
      `MCP server ${server.name}: ${num(server.tools)} tool${server.tools === 1 ? "" : "s"}, ${num(server.tokens)} tokens`,
    )

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
  const pathWidth = Math.min(
    clamp(Math.floor(width * 0.36), 12, 60),
    Math.max(8, ...instructions.entries.map((e) => [...e.path].length)),
  )
  const paths = shortenAll(
    instructions.entries.map((e) => e.path),
    pathWidth,
  )
  for (const e of instructions.entries) {
    const lead = `  ${cell(e.status, 11)} ${cell(paths.get(e.path)!, pathWidth)}  `
    const pad = " ".repeat(lead.length)
    const text = wrap(describeEntry(e), width - lead.length)
    out.push(...text.map((l, i) => (i === 0 ? lead + l : pad + l).trimEnd()))
  }
  for (const [title, entries] of [
    ["Skills", report.skills],
    ["MCP servers", report.mcpServers],
  ] as const) {
    if (entries.length === 0) continue
    const counts = new Map<string, number>()
    for (const e of entries) counts.set(e.status, (counts.get(e.status) ?? 0) + 1)
    para(`${title}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")} (promptline doctor lists them)`)
  }

  const { cache } = report
  heading("Cache layout")
  para(`Prefix hash ${cache.hash.slice(0, 16)}… (tools, then the system prompt; equal hash ⇔ the cache can hit)`)
  const min = cache.minTokens === undefined ? "" : `; the provider caches from ${num(cache.minTokens)}`
  para(`Cached prefix, in the order the provider caches it: ${num(cache.prefixTokens)} tokens${min}`)
  // Number, label, tokens, note: 4 + 2 + 2 + label + 1 + 8 + note columns.
  const prefixLabel = (item: (typeof cache.prefix)[number]) =>
    item.kind === "tools" ? `tool definitions (${report.tools.length})` : `system: ${item.id}`
  const labelWidth = clamp(width - 64, Math.min(36, width - 27), 48)
  const prefixLabels = shortenAll(cache.prefix.map(prefixLabel), labelWidth)
  const longNote = labelWidth + 17 + 44 <= width
  for (const [i, item] of cache.prefix.entries()) {
    const text = longNote ? "  volatile: moves the prefix when it changes" : "  volatile"
    const note = item.volatile ? paint("yellow", text) : ""
    out.push(
      `    ${right(String(i + 1), 2)}. ${cell(prefixLabels.get(prefixLabel(item))!, labelWidth)} ${right(num(item.tokens), 8)}${note}`,
    )
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

  const line = (d: InspectReport["warnings"][number]) => {
    const style: Style = d.level === "error" ? "red" : d.level === "warning" ? "yellow" : "dim"
    for (const l of wrap(formatDiagnostic(d), width - 2, "    ")) out.push(`  ${paint(style, l)}`)
  }
  // One list: the report's checks and the diagnostics of gathering and building, each printed once.
  const { problems, notes } = warningList(report)
  heading(`Warnings (${problems.length})${notes.length > 0 ? `, notes (${notes.length})` : ""}`)
  if (problems.length === 0 && notes.length === 0) out.push("  none")
  for (const d of [...problems, ...notes]) line(d)
  return `${out.join("\n")}\n`
}
