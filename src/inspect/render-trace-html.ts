/**
 * `inspect --trace --html`: the trace report as one self-contained page: the window bar, the sections and
 * tools, the cache layout and verdict, and a timeline of the conversation's requests (tokens stacked cached,
 * written and uncached; misses marked with their cause).
 */
import { describeCalibration } from "./calibration-text.js"
import { escapeHtml as e, htmlPage } from "./html-assets.js"
import { windowBar } from "./render-html-parts.js"
import { num, pct } from "./text.js"
import type { TimelineEntry, TraceReport } from "./trace-report.js"

const TIMELINE_STYLE = `
.timeline { display: flex; align-items: flex-end; gap: 2px; height: 180px; border-bottom: 1px solid var(--line); margin: 8px 0; }
.req { flex: 1 1 0; display: flex; flex-direction: column-reverse; min-width: 3px; position: relative; cursor: default; }
.req .read { background: hsl(140 50% 40%); }
.req .write { background: hsl(40 70% 50%); }
.req .uncached { background: hsl(0 60% 55%); }
.req.current { outline: 2px solid var(--fg); outline-offset: 1px; }
.req.miss::after { content: "✕"; position: absolute; top: -16px; left: 50%; transform: translateX(-50%); color: var(--err); font-size: 11px; }
.verdict-miss { color: var(--err); }
.verdict-hit { color: hsl(140 50% 35%); }
`

function rows(items: { name: string; tokens: number }[]): string {
  const total = items.reduce((n, i) => n + i.tokens, 0)
  const body = items
    .map(
      (i) =>
        `<tr><td class="mono">${e(i.name)}</td><td class="num">${num(i.tokens)}</td><td class="num">${pct(total > 0 ? i.tokens / total : 0)}</td></tr>`,
    )
    .join("")
  return `<table><thead><tr><th>Name</th><th class="num">Tokens</th><th class="num">Share</th></tr></thead><tbody>${body}</tbody></table>`
}

function timeline(entries: readonly TimelineEntry[], current: number): string {
  const max = Math.max(1, ...entries.map((t) => t.total))
  const bars = entries.map((t) => {
    const h = (n: number) => ((100 * n) / max).toFixed(3)
    // The layers are shares of the request's own bar.
    const part = (n: number) => (t.total > 0 ? (100 * n) / t.total : 0).toFixed(3)
    const label = `#${t.n} ${t.verdict}: ${num(t.total)} tokens, ${num(t.read)} cached, ${num(t.write)} written, ${num(t.uncached)} uncached${t.cause ? ` — ${t.cause}` : ""}`
    const classes = ["req", t.verdict, ...(t.n === current ? ["current"] : [])].join(" ")
    return `<div class="${classes}" data-n="${t.n}" data-verdict="${t.verdict}"${t.cause ? ` data-cause="${e(t.cause)}"` : ""} title="${e(label)}" aria-label="${e(label)}" style="height:${h(t.total)}%"><div class="read" style="height:${part(t.read)}%"></div><div class="write" style="height:${part(t.write)}%"></div><div class="uncached" style="flex:1 1 auto"></div></div>`
  })
  const misses = entries
    .filter((t) => t.verdict === "miss")
    .map((t) => `<li data-n="${t.n}">#${t.n}: ${e(t.cause ?? "miss")}</li>`)
    .join("")
  const legend =
    '<ul class="legend"><li><span class="swatch" style="background:hsl(140 50% 40%)"></span>cached</li><li><span class="swatch" style="background:hsl(40 70% 50%)"></span>written</li><li><span class="swatch" style="background:hsl(0 60% 55%)"></span>uncached</li></ul>'
  return `<div class="timeline" id="timeline-bars">${bars.join("")}</div>${legend}<h3>Misses</h3><ul id="misses">${misses || "<li>None.</li>"}</ul>`
}

/** Renders a trace report as one self-contained HTML page (inline style and script, no network). */
export function renderTraceHtml(report: TraceReport): string {
  const title = `promptline inspect: request ${report.request} of ${report.requests}, ${report.model.id}`
  const v = report.cache.verdict
  const breakpoints = report.cache.breakpoints
    .map((b) => `<tr><td class="mono">${e(b.path)}</td><td>${e(b.ttl)}</td><td class="num">${num(b.tokens)}</td></tr>`)
    .join("")
  const body = [
    `<header><h1>${e(title)}</h1><p class="meta">${e(`${report.clientApi} client → ${report.upstream} · ${report.file}`)}</p>${report.calibration ? `<p class="meta">${e(`Calibration: ${describeCalibration(report.calibration)}`)}.</p>` : ""}</header>`,
    "<main>",
    `<section id="window">${windowBar(report, "The request as sent: its prompt and its conversation")}${report.messagesFrom === "layout" ? '<p class="note">Message kinds read from the wire units (this format has no request decoder yet).</p>' : ""}</section>`,
    `<section id="verdict"><h2>Cache verdict</h2><p class="verdict-${v.verdict}" id="verdict-text">${e(report.cache.summary)}</p></section>`,
    `<section id="timeline"><h2>Conversation: ${report.requests} requests</h2>${timeline(report.timeline, report.request)}</section>`,
    `<section id="sections"><h2>System prompt sections (${report.sections.length})</h2>${rows(report.sections)}</section>`,
    `<section id="tools"><h2>Tools (${report.tools.length})</h2>${rows(report.tools)}</section>`,
    `<section id="cache"><h2>Cache layout</h2><p>${e(report.cache.order)}. Prefix shared with the previous request: ${num(report.cache.shared)} of ${num(report.cache.total)} tokens.</p><table><thead><tr><th>Breakpoint</th><th>TTL</th><th class="num">Tokens up to it</th></tr></thead><tbody>${breakpoints || '<tr><td colspan="3">No breakpoints (automatic caching).</td></tr>'}</tbody></table></section>`,
    "</main>",
  ]
  return htmlPage(title, body, TIMELINE_STYLE)
}
