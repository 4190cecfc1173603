/**
 * The gateway's status page: one self-contained HTML page (inline style, no script, nothing loaded from anywhere)
 * that reloads itself every few seconds: the totals so far, each upstream's health, the recent requests.
 */
import { costSumText, costText } from "../cache/usage-text.js"
import { escapeHtml as e, htmlPage } from "../inspect/html-assets.js"
import { num, pct } from "../inspect/text.js"
import type { GatewayStatusSnapshot, RecentRequest, UpstreamHealth } from "./status.js"

/** How often the page reloads itself, in seconds. */
export const STATUS_REFRESH_SECONDS = 5

const STATUS_STYLE = `
dl.totals { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.totals dt { color: var(--muted); }
dl.totals dd { margin: 0; font-variant-numeric: tabular-nums; }
tr.failed td.status, td.errors.some { color: var(--err); }
.circuit-open { color: var(--err); font-weight: 600; }
.circuit-half-open { color: var(--warn); }
`

const time = (ms: number) => new Date(ms).toISOString().slice(11, 19)
const share = (t: { input: number; cacheRead: number; cacheWrite: number }) => {
  const prompt = t.input + t.cacheRead + t.cacheWrite
  return prompt > 0 ? pct(t.cacheRead / prompt) : "-"
}

function upstreamRow(u: UpstreamHealth): string {
  const circuit = u.circuit
    ? `<span class="circuit-${u.circuit.state}">${e(u.circuit.state)}</span>${u.circuit.detail ? ` ${e(u.circuit.detail)}` : ""}`
    : "-"
  return [
    `<tr data-upstream="${e(u.name)}">`,
    `<td class="mono">${e(u.name)}</td>`,
    `<td>${e(u.provider)}${u.format ? ` (${e(u.format)})` : ""}</td>`,
    `<td class="num">${num(u.requests)}</td>`,
    `<td class="num errors${u.errors > 0 ? " some" : ""}">${num(u.errors)}</td>`,
    `<td class="num">${u.lastStatus ?? "-"}</td>`,
    `<td>${e(u.lastError ?? "-")}</td>`,
    `<td>${u.lastAt !== undefined ? time(u.lastAt) : "-"}</td>`,
    `<td class="circuit">${circuit}</td>`,
    "</tr>",
  ].join("")
}

function recentRow(r: RecentRequest): string {
  const failed = r.error !== undefined || r.status >= 400
  const model = r.upstreamModel && r.upstreamModel !== r.model ? `${r.model} → ${r.upstreamModel}` : r.model
  return [
    `<tr data-seq="${r.seq}"${failed ? ' class="failed"' : ""}>`,
    `<td class="num">${r.seq}</td>`,
    `<td>${time(r.at)}</td>`,
    `<td>${e(r.clientApi)} → ${e(r.upstream ?? "-")}</td>`,
    `<td class="mono">${e(model)}</td>`,
    `<td class="num status">${r.status}</td>`,
    `<td class="num">${r.tokens ? num(r.tokens.input + r.tokens.cacheRead + r.tokens.cacheWrite) : "-"}</td>`,
    `<td class="num">${r.tokens ? num(r.tokens.output) : "-"}</td>`,
    `<td class="num">${r.tokens ? share(r.tokens) : "-"}</td>`,
    `<td class="num cost">${r.cost !== undefined ? e(costText(r.cost ?? undefined)) : "-"}</td>`,
    `<td class="num">${num(r.latencyMs)} ms</td>`,
    `<td>${e(r.error ?? "")}</td>`,
    "</tr>",
  ].join("")
}

/** The status as one HTML page. */
export function renderStatusHtml(status: GatewayStatusSnapshot): string {
  const t = status.totals
  const title = "promptline gateway status"
  const totals: [string, string][] = [
    ["Requests", num(t.requests)],
    ["Errors", num(t.errors)],
    ["Cached share", `${pct(t.cachedShare)} of prompt tokens`],
    [
      "Tokens",
      `${num(t.tokens.input)} input, ${num(t.tokens.cacheRead)} cached, ${num(t.tokens.cacheWrite)} cache write, ${num(t.tokens.output)} output`,
    ],
    ["Cost so far", costSumText(t.cost)],
  ]
  if (t.unreported > 0) totals.push(["Without usage", `${num(t.unreported)} requests (not in the tokens or the cost)`])
  const upstreamHead =
    '<tr><th>Upstream</th><th>Provider</th><th class="num">Requests</th><th class="num">Errors</th><th class="num">Last status</th><th>Last error</th><th>Last request (UTC)</th><th>Circuit</th></tr>'
  const recentHead =
    '<tr><th class="num">#</th><th>Time (UTC)</th><th>Client → upstream</th><th>Model</th><th class="num">Status</th><th class="num">In</th><th class="num">Out</th><th class="num">Cached</th><th class="num">Cost</th><th class="num">Latency</th><th>Error</th></tr>'
  const body = [
    `<header><h1>${e(title)}</h1><p class="meta" id="clock">Up since ${e(new Date(status.startedAt).toISOString())}; as of ${e(new Date(status.now).toISOString())}, reloading every ${STATUS_REFRESH_SECONDS} s. The same as JSON: /promptline/status.json</p></header>`,
    "<main>",
    `<section><h2>So far</h2><dl class="totals" id="totals">${totals.map(([k, v]) => `<dt>${e(k)}</dt><dd data-total="${e(k)}">${e(v)}</dd>`).join("")}</dl><p class="note">Cost at catalog prices, from the usage each upstream reported; $? where a model has no price.</p></section>`,
    `<section><h2>Upstreams</h2><table id="upstreams"><thead>${upstreamHead}</thead><tbody>${status.upstreams.map(upstreamRow).join("") || '<tr><td colspan="8">None yet.</td></tr>'}</tbody></table></section>`,
    `<section><h2>Recent requests</h2><table id="recent"><thead>${recentHead}</thead><tbody>${status.recent.map(recentRow).join("") || '<tr><td colspan="11">None yet.</td></tr>'}</tbody></table></section>`,
    "</main>",
  ]
  return htmlPage(title, body, STATUS_STYLE, { script: false, refreshSeconds: STATUS_REFRESH_SECONDS, noIcon: true })
}

/** A refusal as a page a browser shows (and asks no icon for). */
export function renderRefusalHtml(status: number, message: string): string {
  return htmlPage(
    `promptline gateway status: ${status}`,
    [`<main><h1>${status}</h1><p id="refusal">${e(message)}</p></main>`],
    "",
    {
      script: false,
      noIcon: true,
    },
  )
}
