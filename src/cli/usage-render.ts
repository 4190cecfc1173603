/**
 * The usage report for a person: a terminal table (`promptline usage`) and one self-contained HTML page
 * (`--html`, inline style, no script, nothing loaded from anywhere).
 */
import type { UsageTotals } from "../cache/usage.js"
import type { UsageReport } from "../cache/usage-report.js"
import { costSumText, UNPRICED, usd } from "../cache/usage-text.js"
import { escapeHtml as e, htmlPage } from "../inspect/html-assets.js"
import { cell, num, pct, right } from "../inspect/text.js"
import type { CostSum } from "../models/cost.js"

/** Dollars of a group: the priced part, `+?` when some requests have no price, `$?` when none has one. */
function dollars(cost: CostSum, part: "input" | "output" | "total"): string {
  if (cost.unpriced === 0) return usd(cost[part])
  return cost.priced === 0 ? UNPRICED : `${usd(cost[part])}+?`
}

/** The columns of a row: heading, width, and the figure of a group. */
const COLUMNS: [string, number, (t: UsageTotals) => string][] = [
  ["requests", 9, (t) => num(t.requests)],
  ["input", 12, (t) => num(t.tokens.input)],
  ["cached", 12, (t) => num(t.tokens.cacheRead)],
  ["cache write", 12, (t) => num(t.tokens.cacheWrite)],
  ["output", 11, (t) => num(t.tokens.output)],
  ["cached %", 9, (t) => pct(t.cachedShare)],
  ["cost in", 11, (t) => dollars(t.cost, "input")],
  ["cost out", 11, (t) => dollars(t.cost, "output")],
  ["cost", 11, (t) => dollars(t.cost, "total")],
  ["errors", 7, (t) => num(t.errors)],
  ["fallbacks", 10, (t) => num(t.fallbacks)],
]

/** What the report covers: the folder, and the time it starts from. */
function scope(report: UsageReport): string {
  return `${report.dir}${report.since ? ` since ${report.since}` : ""}`
}

/** The notes under the figures: where costs come from and what they leave out. */
function notes(total: UsageTotals): string[] {
  const out = ["Cost at catalog prices, from the usage each upstream reported."]
  if (total.cost.unpriced > 0)
    out.push(
      `${UNPRICED}: no price for ${total.cost.unpricedModels.join(", ")} (${num(total.cost.unpriced)} request${total.cost.unpriced === 1 ? "" : "s"} not in the cost); give the model prices in promptline.config.json's models.`,
    )
  if (total.unreported > 0)
    out.push(
      `${num(total.unreported)} request${total.unreported === 1 ? "" : "s"} succeeded without reporting usage: not in the tokens or the cost.`,
    )
  return out
}

/** The report as terminal text. */
export function renderUsageText(report: UsageReport): string {
  const t = report.total
  if (t.requests === 0) return `No requests in ${scope(report)}.\n`
  const lines: string[] = []
  if (!report.by) {
    lines.push(
      `${num(t.requests)} request${t.requests === 1 ? "" : "s"} in ${scope(report)}`,
      `  tokens     ${num(t.tokens.input)} input, ${num(t.tokens.cacheRead)} cached, ${num(t.tokens.cacheWrite)} cache write, ${num(t.tokens.output)} output; ${pct(t.cachedShare)} of prompt tokens cached`,
      `  cost       ${costSumText(t.cost)}`,
      `  errors     ${num(t.errors)}, fallbacks ${num(t.fallbacks)}`,
    )
  } else {
    const keyWidth = Math.min(40, Math.max(report.by.length, 5, ...report.groups.map((g) => [...g.key].length)))
    const row = (key: string, cells: string[]) =>
      `${cell(key, keyWidth)}${cells.map((c, i) => right(c, COLUMNS[i]![1])).join("")}`.trimEnd()
    lines.push(
      `Usage in ${scope(report)}, by ${report.by}`,
      "",
      row(
        report.by,
        COLUMNS.map(([heading]) => heading),
      ),
    )
    for (const g of report.groups)
      lines.push(
        row(
          g.key,
          COLUMNS.map(([, , figure]) => figure(g)),
        ),
      )
    lines.push(
      row(
        "total",
        COLUMNS.map(([, , figure]) => figure(t)),
      ),
    )
  }
  lines.push("", ...notes(t))
  return `${lines.join("\n")}\n`
}

const USAGE_STYLE = `
td.key { font-family: var(--mono); font-size: 12px; word-break: break-all; }
tr.total td { font-weight: 600; border-top: 2px solid var(--line); }
.share { display: inline-block; height: 10px; background: hsl(140 50% 40%); border-radius: 2px; vertical-align: middle; }
dl.totals { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.totals dt { color: var(--muted); }
dl.totals dd { margin: 0; font-variant-numeric: tabular-nums; }
`

/** One table row of figures. */
function htmlRow(key: string, t: UsageTotals, className = ""): string {
  const cells = COLUMNS.map(([, , figure]) => `<td class="num">${e(figure(t))}</td>`).join("")
  const bar = `<span class="share" style="width:${(t.cachedShare * 60).toFixed(1)}px" title="${e(pct(t.cachedShare))} cached"></span>`
  return `<tr${className ? ` class="${className}"` : ""}><td class="key">${e(key)}</td>${cells}<td>${bar}</td></tr>`
}

/** The report as one self-contained HTML page. */
export function renderUsageHtml(report: UsageReport): string {
  const t = report.total
  const title = `promptline usage: ${num(t.requests)} request${t.requests === 1 ? "" : "s"}${report.by ? ` by ${report.by}` : ""}`
  const totals = [
    ["Requests", num(t.requests)],
    [
      "Tokens",
      `${num(t.tokens.input)} input, ${num(t.tokens.cacheRead)} cached, ${num(t.tokens.cacheWrite)} cache write, ${num(t.tokens.output)} output`,
    ],
    ["Cached share", `${pct(t.cachedShare)} of prompt tokens`],
    ["Cost", costSumText(t.cost)],
    ["Errors", num(t.errors)],
    ["Fallbacks", num(t.fallbacks)],
  ]
  const head = `<tr><th>${e(report.by ?? "")}</th>${COLUMNS.map(([h]) => `<th class="num">${e(h)}</th>`).join("")}<th>cached share</th></tr>`
  const rows = [...report.groups.map((g) => htmlRow(g.key, g)), htmlRow("total", t, "total")].join("")
  const body = [
    `<header><h1>${e(title)}</h1><p class="meta">${e(scope(report))}</p></header>`,
    "<main>",
    `<section id="totals"><h2>Total</h2><dl class="totals">${totals.map(([k, v]) => `<dt>${e(k!)}</dt><dd>${e(v!)}</dd>`).join("")}</dl></section>`,
    report.by
      ? `<section id="groups"><h2>By ${e(report.by)}</h2><table><thead>${head}</thead><tbody>${rows}</tbody></table></section>`
      : "",
    `<section id="notes">${notes(t)
      .map((n) => `<p class="note">${e(n)}</p>`)
      .join("")}</section>`,
    report.diagnostics.length > 0
      ? `<section id="skipped"><h2>Left out</h2><ul>${report.diagnostics.map((d) => `<li class="level-${d.level}">${e(`${d.path ?? ""}${d.line ? `:${d.line}` : ""}: ${d.message}`)}</li>`).join("")}</ul></section>`
      : "",
    "</main>",
  ]
  return htmlPage(title, body, USAGE_STYLE, { script: false })
}
