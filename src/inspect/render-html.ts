import { lazyModule } from "../lazy-module.js"

/** jsdiff, required on the first diff. */
const jsdiff = lazyModule<typeof import("diff")>("diff")

import type { Diagnostic } from "../diagnostics.js"
import type { BuildDiff, SectionChange } from "./build-diff.js"
import { calibrationLine, exactRows } from "./calibration-text.js"
import { escapeHtml as e, htmlPage, segmentColor } from "./html-assets.js"
import { promptWindowHolds, serversTable, skillsTable, toolGroups, windowBar } from "./render-html-parts.js"
import type { ExactCount, InspectReport, InstructionLine } from "./report.js"
import { num, pct, signed } from "./text.js"
import { warningList } from "./warning-list.js"

/** A second build to show beside the first (`--compare MODEL`), with the diff of the two. */
export interface HtmlComparison {
  report: InspectReport
  diff: BuildDiff
}

const where = (p: string) => (p === "context-message" ? "context message" : p)

/** The stacked bar of token shares; `linked` segments open their section when clicked. */
function bar(report: InspectReport, id: string, linked: boolean): string {
  const offset = report.segments[0]?.kind === "tools" ? 1 : 0
  const segments = report.segments.map((s, i) => {
    const label = `${s.kind === "tools" ? "tool definitions" : s.id}: ${num(s.tokens)} tokens (${pct(s.share)}), ${where(s.placement)}`
    const color = segmentColor(i, s.kind, s.placement)
    const link = linked
      ? ` role="button" tabindex="0" data-target="${s.kind === "tools" ? "tools" : `section-${i - offset}`}"`
      : ""
    return `<div class="seg"${link} style="width:${(s.share * 100).toFixed(4)}%;background:${color}" data-id="${e(s.id)}" data-share="${s.share}" data-tokens="${s.tokens}" title="${e(label)}" aria-label="${e(label)}"></div>`
  })
  const legend = report.segments.map(
    (s, i) =>
      `<li><span class="swatch" style="background:${segmentColor(i, s.kind, s.placement)}"></span>${e(s.kind === "tools" ? "tool definitions" : s.id)} ${pct(s.share)}</li>`,
  )
  return `<div class="bar" id="${id}">${segments.join("")}</div>\n<ul class="legend">${legend.join("")}</ul>`
}

function sections(report: InspectReport): string {
  const offset = report.segments[0]?.kind === "tools" ? 1 : 0
  return report.sections
    .map((s, i) => {
      const color = segmentColor(i + offset, "section", s.placement)
      const badge = s.volatile ? ` <span class="badge volatile">volatile</span>` : ""
      return `<details class="section" id="section-${i}" data-section="${e(s.id)}"><summary><span class="swatch" style="background:${color}"></span><span class="id">${e(s.id)}</span><span class="badge">${e(where(s.placement))}</span>${badge}<span class="facts">${num(s.tokens)} tokens · ${pct(s.share)}</span></summary><pre>${e(s.text)}</pre></details>`
    })
    .join("\n")
}

function tools(report: InspectReport): string {
  if (report.tools.length === 0) return `<p class="note">No tools are enabled.</p>`
  const native = report.tools.some((t) => t.where === "definition")
  const intro = native
    ? `${report.tools.length} native definitions in the ${e(report.model.wireFormat)} format, ${num(report.totals.tools)} tokens${report.toolsPreamble > 0 ? ` (with the provider's ${num(report.toolsPreamble)}-token tool-use preamble)` : ""}.`
    : `${report.tools.length} tools documented in the tool-use section (XML dialect); their tokens are part of that section.`
  return `<p class="note">${intro}</p>\n${toolGroups(report)}`
}

function entries(list: readonly InstructionLine[]): string {
  if (list.length === 0) return `<p class="note">None.</p>`
  const rows = list.map(
    (x) =>
      `<tr><td>${e(x.status)}</td><td class="mono">${e(x.path)}</td><td>${e(x.scope)}</td><td>${e(x.convention ?? "")}</td><td class="num">${x.tokens === undefined ? "" : num(x.tokens)}</td><td>${e([x.globs ? `globs: ${x.globs.join(", ")}` : "", x.reason ?? "", x.detail ?? ""].filter(Boolean).join(" · "))}</td></tr>`,
  )
  return `<table><thead><tr><th>status</th><th>path</th><th>scope</th><th>convention</th><th class="num">tokens</th><th>why</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

function diagnostics(list: readonly Diagnostic[], empty: string): string {
  if (list.length === 0) return `<p class="note">${e(empty)}</p>`
  const items = list.map(
    (d) =>
      `<li class="level-${d.level}"><strong>${d.level}</strong> ${d.path ? `<code>${e(d.path)}${d.line ? `:${d.line}` : ""}</code> ` : ""}${e(d.message)} <code>[${e(d.code)}]</code></li>`,
  )
  return `<ul>${items.join("")}</ul>`
}

function cache(report: InspectReport): string {
  const { cache: c } = report
  const rows = c.prefix.map(
    (item, i) =>
      `<tr><td class="num">${i + 1}</td><td>${item.kind === "tools" ? "tool definitions" : `system: <code>${e(item.id)}</code>`}${item.volatile ? ` <span class="badge volatile">volatile</span>` : ""}</td><td class="num">${num(item.tokens)}</td></tr>`,
  )
  const moved = c.volatile.filter((v) => v.placement === "context-message").map((v) => `<code>${e(v.id)}</code>`)
  return [
    `<p>Prefix hash <code>${e(c.hash)}</code>: tools first, then the system prompt, the order providers cache in. ${num(c.prefixTokens)} tokens${c.minTokens === undefined ? "" : `; the provider caches from ${num(c.minTokens)}`}.</p>`,
    `<table><thead><tr><th class="num">#</th><th>in the cached prefix</th><th class="num">tokens</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    moved.length > 0
      ? `<p>Volatile, sent in the context message after the prefix: ${moved.join(", ")}.</p>`
      : `<p class="note">Nothing is sent in a context message.</p>`,
  ].join("\n")
}

/** Splits a line diff into the two columns: the old text with removals marked, the new with additions. */
function columns(before: string, after: string): [string, string] {
  let left = ""
  let right = ""
  for (const part of jsdiff().diffLines(before, after)) {
    const text = e(part.value)
    if (part.added) right += `<ins class="add">${text}</ins>`
    else if (part.removed) left += `<del class="rm">${text}</del>`
    else {
      left += text
      right += text
    }
  }
  return [left, right]
}

function compareSection(s: SectionChange): string {
  const facts = `${s.before ? num(s.before.tokens) : "—"} → ${s.after ? num(s.after.tokens) : "—"} (${signed(s.delta)})`
  const [left, right] =
    s.status === "changed" ? columns(s.before!.text, s.after!.text) : [e(s.before?.text ?? ""), e(s.after?.text ?? "")]
  const open = s.status === "unchanged" ? "" : " open"
  return `<details class="compare status-${s.status}" data-section="${e(s.id)}" data-status="${s.status}"${open}><summary><span class="id">${e(s.id)}</span><span class="badge">${s.status}${s.moved ? ", moved" : ""}</span><span class="facts">${facts}</span></summary><div class="pair"><pre>${left}</pre><pre>${right}</pre></div></details>`
}

function comparison(c: HtmlComparison): string {
  const { diff } = c
  const tools = diff.tools
    .filter((t) => t.status !== "unchanged")
    .map(
      (t) =>
        `<tr class="status-${t.status}"><td class="mono id">${e(t.name)}</td><td>${t.status}${t.changes ? ` (${e(t.changes.join(", "))})` : ""}</td><td class="num">${t.before === undefined ? "—" : num(t.before)}</td><td class="num">${t.after === undefined ? "—" : num(t.after)}</td><td class="num">${signed(t.delta)}</td></tr>`,
    )
  const same = diff.tools.filter((t) => t.status === "unchanged").length
  return [
    `<h2>Compared with ${e(diff.b.label)}</h2>`,
    `<p>a: <code>${e(diff.a.model)}</code> (variant ${e(diff.a.variant)}, ${num(diff.a.totals.total)} tokens) · b: <code>${e(diff.b.model)}</code> (variant ${e(diff.b.variant)}, ${num(diff.b.totals.total)} tokens) · total ${signed(diff.delta.total)} tokens · cached prefix ${diff.samePrefix ? "identical" : "differs"}.${diff.sameTokenizer ? "" : ` Each side is counted with its own tokenizer (${e(diff.a.tokenizer)}, ${e(diff.b.tokenizer)}).`}</p>`,
    bar(c.report, "bar-compare", false),
    `<div class="toolbar"><button type="button" data-action="expand" data-scope="compare">Expand all</button><button type="button" data-action="collapse" data-scope="compare">Collapse all</button></div>`,
    `<div class="pair labels"><div>a: <code>${e(diff.a.label)}</code></div><div>b: <code>${e(diff.b.label)}</code></div></div>`,
    diff.sections.map(compareSection).join("\n"),
    `<h3>Tools</h3>`,
    tools.length > 0
      ? `<table><thead><tr><th>tool</th><th>change</th><th class="num">a</th><th class="num">b</th><th class="num">delta</th></tr></thead><tbody>${tools.join("")}</tbody></table>`
      : "",
    `<p class="note">${same} tools unchanged.</p>`,
  ].join("\n")
}

/** The exact count beside the estimate, per part, or why there is none. */
function exactSection(exact: ExactCount): string {
  const { heading, note, rows } = exactRows(exact)
  const table =
    rows.length > 0
      ? `<table><thead><tr><th>part</th><th class="num">exact</th><th class="num">estimated</th><th class="num">delta</th><th class="num">ratio</th></tr></thead><tbody>${rows
          .map(
            (r) =>
              `<tr><td>${e(r.part)}</td><td class="num">${num(r.exact)}</td><td class="num">${num(r.estimated)}</td><td class="num">${e(r.delta)}</td><td class="num">${e(r.ratio)}</td></tr>`,
          )
          .join("")}</tbody></table>`
      : ""
  return `<h2>${e(heading)}</h2>${table}${note ? `<p class="note">${e(note)}</p>` : ""}`
}

/** Renders the inspect report as one self-contained HTML page (inline style and script, no network). */
export function renderHtml(report: InspectReport, compare?: HtmlComparison): string {
  const { model, totals } = report
  const title = `promptline inspect: ${model.id}`
  const parts = [
    ...(totals.tools > 0 ? [`tool definitions ${num(totals.tools)}`] : []),
    `system prompt ${num(totals.system)}`,
    ...(report.contextMessage !== undefined ? [`context message ${num(totals.contextMessage)}`] : []),
  ]
  // One warnings list (errors and warnings of every stage); the gather's and build's notes follow at the end.
  const { problems, notes } = warningList(report)
  const others = report.diagnostics.filter((d) => d.level === "info")
  const calibration = calibrationLine(report.calibrations)
  const body = [
    `<header><h1>${e(title)}</h1><p class="meta">${e(`${model.provider} · ${model.family} family · variant ${report.variant} · ${report.toolCalling} tool calls · ${model.wireFormat} wire format · placement ${report.placement}`)}</p><p class="meta">Tokens ${e(report.counting.description)}.</p>${calibration ? `<p class="meta">${e(calibration)}.</p>` : ""}</header>`,
    "<main>",
    `<section id="overview"><h2>${num(totals.total)} tokens, ${pct(totals.windowShare)} of the ${num(totals.window)}-token window</h2><p>${e(parts.join(" + "))}</p>${bar(report, "bar", true)}</section>`,
    `<section id="window">${windowBar(report, promptWindowHolds(report))}</section>`,
    ...(report.exact ? [`<section id="exact">${exactSection(report.exact)}</section>`] : []),
    `<section id="warnings"><h2>Warnings (${problems.length})</h2>${diagnostics([...problems, ...notes], "No warnings.")}</section>`,
    `<section id="sections"><h2>Sections</h2><div class="toolbar"><button type="button" data-action="expand" data-scope="sections">Expand all</button><button type="button" data-action="collapse" data-scope="sections">Collapse all</button></div>${sections(report)}</section>`,
    `<section id="tools"><h2>Tools (${report.tools.length})</h2>${tools(report)}</section>`,
    `<section id="instructions"><h2>Instruction files</h2>${report.instructions.note ? `<p class="note">${e(report.instructions.note)}</p>` : ""}${entries(report.instructions.entries)}</section>`,
    `<section id="skills"><h2>Skills (${report.skills.length})</h2>${skillsTable(report.skills)}</section>`,
    `<section id="mcp-servers"><h2>MCP servers (${report.mcpServers.length})</h2>${serversTable(report.mcpServers)}</section>`,
    `<section id="cache"><h2>Cache layout</h2>${cache(report)}</section>`,
    ...(others.length > 0
      ? [`<section id="notes"><h2>Notes (${others.length})</h2>${diagnostics(others, "No notes.")}</section>`]
      : []),
    ...(compare ? [`<section id="compare">${comparison(compare)}</section>`] : []),
    "</main>",
  ]
  return htmlPage(title, body)
}
