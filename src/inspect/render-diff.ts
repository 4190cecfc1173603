import type { BuildDiff, DiffSide, SectionChange, ToolChange } from "./build-diff.js"
import { MIN_SHORTEN_WIDTH, shortenAll } from "./shorten.js"
import { cell, num, painter, right, signed } from "./text.js"

/** Options of the text diff. */
export interface DiffTextOptions {
  color?: boolean
  /** Show unchanged sections too (default true). */
  unchangedSections?: boolean
  /** Name the unchanged tools (default false: only their count). */
  unchangedTools?: boolean
}

const MARK: Record<SectionChange["status"], string> = { added: "+", removed: "-", changed: "~", unchanged: "=" }

function describe(s: DiffSide): string {
  return `${s.model} · variant ${s.variant} · ${s.toolCalling} tool calls · ${s.wireFormat} · ${num(s.totals.total)} tokens (${s.tokenizer})`
}

const tokens = (n: number | undefined): string => (n === undefined ? "—" : num(n))

/** Renders a diff of two builds as text: header, totals, each section (with line diffs), each tool. */
export function renderDiff(diff: BuildDiff, options: DiffTextOptions = {}): string {
  const paint = painter(options.color === true)
  const out: string[] = [paint("bold", "promptline diff")]
  // Labels, section ids and tool names that do not fit lose their middle, and two different ones stay different.
  const labelWidth = Math.min(40, Math.max(MIN_SHORTEN_WIDTH, [...diff.a.label].length, [...diff.b.label].length))
  const labels = shortenAll([diff.a.label, diff.b.label], labelWidth)
  out.push(`  a: ${cell(labels.get(diff.a.label)!, labelWidth)}  ${describe(diff.a)}`)
  out.push(`  b: ${cell(labels.get(diff.b.label)!, labelWidth)}  ${describe(diff.b)}`)
  const d = diff.delta
  out.push(
    `  total ${signed(d.total)} tokens (system prompt ${signed(d.system)}, context message ${signed(d.contextMessage)}, tool definitions ${signed(d.tools)})`,
  )
  out.push(
    diff.samePrefix
      ? "  cached prefix: identical (same hash)"
      : `  cached prefix: differs (${diff.a.hash.slice(0, 12)}… vs ${diff.b.hash.slice(0, 12)}…)`,
  )
  if (!diff.sameTokenizer)
    out.push(
      paint(
        "dim",
        `  each side is counted with its own tokenizer (${diff.a.tokenizer}, ${diff.b.tokenizer}): deltas mix the two`,
      ),
    )

  const idWidth = Math.min(28, Math.max(8, ...diff.sections.map((s) => s.id.length)))
  const ids = shortenAll(
    diff.sections.map((s) => s.id),
    idWidth,
  )
  out.push("", paint("bold", "Sections"))
  for (const s of diff.sections) {
    if (s.status === "unchanged" && options.unchangedSections === false) continue
    const where =
      s.before && s.after && s.before.placement !== s.after.placement
        ? `  (${s.before.placement} → ${s.after.placement})`
        : ""
    const moved = s.moved ? "  (moved)" : ""
    const line = `  ${MARK[s.status]} ${cell(ids.get(s.id)!, idWidth)} ${right(tokens(s.before?.tokens), 7)} → ${cell(tokens(s.after?.tokens), 7)} ${right(signed(s.delta), 7)}${where}${moved}`
    out.push(s.status === "unchanged" ? paint("dim", line) : line)
    if (s.patch) {
      for (const l of s.patch.split("\n")) {
        const style = l.startsWith("+") ? "green" : l.startsWith("-") ? "red" : l.startsWith("@@") ? "cyan" : undefined
        out.push(`      ${style ? paint(style, l) : l}`)
      }
    }
  }

  out.push("", paint("bold", "Tools"))
  const nameWidth = Math.min(40, Math.max(8, ...diff.tools.map((t) => t.name.length)))
  const names = shortenAll(
    diff.tools.map((t) => t.name),
    nameWidth,
  )
  const same: ToolChange[] = []
  for (const t of diff.tools) {
    if (t.status === "unchanged") {
      same.push(t)
      continue
    }
    const what = t.changes ? `  (${t.changes.join(", ")})` : ""
    out.push(
      `  ${MARK[t.status]} ${cell(names.get(t.name)!, nameWidth)} ${right(tokens(t.before), 6)} → ${cell(tokens(t.after), 6)} ${right(signed(t.delta), 6)}${what}`,
    )
  }
  if (same.length > 0) {
    const delta = same.reduce((n, t) => n + t.delta, 0)
    out.push(`  = ${same.length} unchanged${delta !== 0 ? ` (${signed(delta)} tokens: wire format or tokenizer)` : ""}`)
    if (options.unchangedTools === true) out.push(`    ${same.map((t) => t.name).join(", ")}`)
  }
  if (diff.tools.length === 0) out.push("  none on either side")
  return `${out.join("\n")}\n`
}
