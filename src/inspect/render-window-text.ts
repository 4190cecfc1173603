import type { WindowPartId, WindowView } from "./report-types.js"
import { columnsOf, num, pct, type Style, wrap } from "./text.js"

/** The glyph and colour of each part of the window bar: distinct glyphs, so the bar reads without colour. */
export const WINDOW_GLYPHS: Record<WindowPartId, { glyph: string; style?: Style }> = {
  system: { glyph: "█", style: "cyan" },
  tools: { glyph: "▓", style: "cyan" },
  "mcp-tools": { glyph: "▒", style: "cyan" },
  instructions: { glyph: "░", style: "cyan" },
  user: { glyph: "▚", style: "green" },
  assistant: { glyph: "▞", style: "green" },
  "tool-calls": { glyph: "▙", style: "green" },
  "tool-results": { glyph: "▟", style: "green" },
  reasoning: { glyph: "▜", style: "green" },
  compaction: { glyph: "▐", style: "green" },
  framing: { glyph: "▛", style: "green" },
  reserve: { glyph: "╳", style: "yellow" },
  free: { glyph: "·", style: "dim" },
}

/**
 * The whole-window view for a terminal: a heading line, one bar `width` columns wide in which each part takes
 * its share of the columns, and a legend (glyph, part, tokens, share) wrapped to `width`.
 */
export function windowLines(view: WindowView, width: number, paint: (style: Style, text: string) => string): string[] {
  const lines: string[] = []
  const barWidth = width - 2
  const cols = columnsOf(
    view.parts.map((p) => p.share),
    barWidth,
  )
  const segments = view.parts.map((p, i) => {
    const { glyph, style } = WINDOW_GLYPHS[p.id]
    const text = glyph.repeat(cols[i]!)
    return style ? paint(style, text) : text
  })
  lines.push(`  ${segments.join("")}`)
  const legend = view.parts.map((p) => `${WINDOW_GLYPHS[p.id].glyph} ${p.label} ${num(p.tokens)} (${pct(p.share)})`)
  // Items are joined by a wide gap and never split inside, so each glyph stays next to its label.
  const flush = (text: string) =>
    lines.push(...([...text].length <= barWidth ? [text] : wrap(text, barWidth, "  ")).map((l) => `  ${l}`))
  let line = ""
  for (const item of legend) {
    const next = line === "" ? item : `${line}   ${item}`
    if ([...next].length <= barWidth || line === "") line = next
    else {
      flush(line)
      line = item
    }
  }
  if (line !== "") flush(line)
  return lines
}
