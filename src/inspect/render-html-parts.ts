import { escapeHtml as e } from "./html-assets.js"
import type { InspectReport, McpServerReport, SkillReport, ToolReport, WindowPartId } from "./report-types.js"
import { num, pct } from "./text.js"

/** The colour of each part of the window bar: the prompt in blues, the conversation in greens. */
export const WINDOW_COLORS: Record<WindowPartId, string> = {
  system: "hsl(215 55% 42%)",
  tools: "hsl(200 60% 50%)",
  "mcp-tools": "hsl(185 55% 42%)",
  instructions: "hsl(250 45% 58%)",
  user: "hsl(140 50% 40%)",
  assistant: "hsl(100 45% 45%)",
  "tool-calls": "hsl(60 60% 42%)",
  "tool-results": "hsl(40 70% 50%)",
  reasoning: "hsl(320 40% 55%)",
  compaction: "hsl(280 35% 55%)",
  framing: "hsl(0 0% 60%)",
  reserve: "hsl(20 70% 55%)",
  free: "var(--line)",
}

/**
 * The whole window: its heading, what it holds (`holds`, HTML: the prompt alone, with a conversation, or a request
 * as sent), then one bar (each part as wide as its share) with a legend of tokens and shares.
 */
export function windowBar(report: Pick<InspectReport, "window">, holds: string): string {
  const view = report.window
  const segments = view.parts.map((p) => {
    const label = `${p.label}: ${num(p.tokens)} tokens (${pct(p.share)})`
    return `<div class="seg part-${p.id}" style="width:${(p.share * 100).toFixed(4)}%;background:${WINDOW_COLORS[p.id]}" data-part="${p.id}" data-share="${p.share}" data-tokens="${p.tokens}" title="${e(label)}" aria-label="${e(label)}"></div>`
  })
  const legend = view.parts.map(
    (p) =>
      `<li data-part="${p.id}"><span class="swatch part-${p.id}" style="background:${WINDOW_COLORS[p.id]}"></span>${e(p.label)} ${num(p.tokens)} (${pct(p.share)})</li>`,
  )
  const over = view.over > 0 ? ` <strong class="level-warning">${num(view.over)} tokens over the budget.</strong>` : ""
  return [
    `<h2>Context window: ${num(view.used)} of ${num(view.window)} tokens used, ${num(view.free)} free</h2>`,
    `<p>${holds}, then the ${num(view.reserve)} tokens held back for the answer, then free space.${over}</p>`,
    `<div class="bar window" id="window-bar">${segments.join("")}</div>`,
    `<ul class="legend">${legend.join("")}</ul>`,
  ].join("\n")
}

/** What an inspect report's window holds: the prompt, and the conversation given with `--history` if any. */
export function promptWindowHolds(report: Pick<InspectReport, "window">): string {
  const history = report.window.history
  return history
    ? `The prompt and the conversation (<code>--history</code>: ${num(history.messages)} messages, ${num(history.tokens)} tokens)`
    : "The prompt (no conversation given: <code>--history FILE</code> adds one)"
}

const cellOf = (text: string | undefined, cls = "") => `<td${cls ? ` class="${cls}"` : ""}>${e(text ?? "")}</td>`
const tokensCell = (n: number | undefined) => `<td class="num">${n === undefined ? "" : num(n)}</td>`

/** The skills: name, path, status, why, and the tokens of the skill's line in the prompt. */
export function skillsTable(skills: readonly SkillReport[]): string {
  if (skills.length === 0) return `<p class="note">No skills.</p>`
  const rows = skills.map(
    (s) =>
      `<tr data-skill="${e(s.name ?? s.path)}">${cellOf(s.name, "mono")}${cellOf(s.path, "mono")}${cellOf(s.status)}${cellOf(s.why)}${tokensCell(s.tokens)}</tr>`,
  )
  return `<table class="skills"><thead><tr><th>name</th><th>path</th><th>status</th><th>why</th><th class="num">tokens</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

/** The MCP servers: name, source (config file and format), status, and the count and tokens of their tools. */
export function serversTable(servers: readonly McpServerReport[]): string {
  if (servers.length === 0) return `<p class="note">No MCP servers.</p>`
  const rows = servers.map((s) => {
    const source = [s.source, s.format ? `(${s.format})` : undefined].filter(Boolean).join(" ")
    const status = s.why ? `${s.status}: ${s.why}` : s.status
    return `<tr data-server="${e(s.name)}">${cellOf(s.name, "mono")}${cellOf(source || undefined, "mono")}${cellOf(status)}<td class="num">${num(s.tools)}</td>${tokensCell(s.tokens)}</tr>`
  })
  return `<table class="servers"><thead><tr><th>name</th><th>source</th><th>status</th><th class="num">tools</th><th class="num">tokens</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
}

function toolDetails(t: ToolReport): string {
  return `<details class="tool" data-tool="${e(t.name)}"><summary><span class="id">${e(t.name)}</span><span class="badge">${e(t.kind)}</span><span class="facts">${num(t.tokens)} tokens</span></summary><pre>${e(t.definition)}</pre></details>`
}

/** The tools: built-in ones first, then each MCP server's tools under a heading with their subtotal. */
export function toolGroups(report: InspectReport): string {
  const builtIn = report.tools.filter((t) => !t.mcp)
  const servers = [...new Set(report.tools.flatMap((t) => (t.mcp ? [t.mcp.server] : [])))]
  const groups = servers.map((server) => {
    const own = report.tools.filter((t) => t.mcp?.server === server)
    const tokens = own.reduce((n, t) => n + t.tokens, 0)
    return `<div class="mcp-group" data-server="${e(server)}"><h3>MCP server <code>${e(server)}</code><span class="facts subtotal" data-tools="${own.length}" data-tokens="${tokens}">${own.length} tool${own.length === 1 ? "" : "s"} · ${num(tokens)} tokens</span></h3>\n${own.map(toolDetails).join("\n")}</div>`
  })
  return [builtIn.map(toolDetails).join("\n"), ...groups].join("\n")
}
