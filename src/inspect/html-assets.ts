/** The inline style sheet and script of the HTML report; the page loads nothing else. */

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** The colour of the n-th bar segment: hues spread by the golden angle, so neighbours differ. */
export function segmentColor(index: number, kind: "tools" | "section", placement: string): string {
  if (kind === "tools") return "hsl(215 20% 45%)"
  const hue = Math.round((index * 137.508) % 360)
  return placement === "context-message" ? `hsl(${hue} 45% 72%)` : `hsl(${hue} 60% 50%)`
}

/** Content-Security-Policy of a page: inline style (and inline script, when it has one) only, no network at all. */
export function contentSecurityPolicy(script: boolean): string {
  return `default-src 'none'; style-src 'unsafe-inline';${script ? " script-src 'unsafe-inline';" : ""} img-src data:`
}

export const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5d6678; --bg: #fbfbfd; --panel: #ffffff; --line: #d9dde6;
  --warn: #9a5b00; --err: #b42318; --add: #dff5e3; --rm: #fde4e1; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #9aa3b5; --bg: #14171d; --panel: #1b1f27; --line: #2d3340;
  --warn: #f0b35b; --err: #ff8a80; --add: #143d22; --rm: #4a1d1a; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 20px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; display: flex; gap: 10px; align-items: baseline; }
h3 .facts { margin-left: auto; color: var(--muted); font-weight: normal; font-variant-numeric: tabular-nums; }
.meta, .note { color: var(--muted); margin: 2px 0; }
.bar { display: flex; width: 100%; height: 28px; border-radius: 4px; overflow: hidden; background: var(--line); margin: 8px 0; }
.seg { flex: 0 0 auto; height: 100%; cursor: pointer; }
.seg:hover, .seg:focus { outline: 2px solid var(--fg); outline-offset: -2px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; list-style: none; padding: 0; margin: 0; color: var(--muted); font-size: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: middle; }
details { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; margin: 6px 0; }
summary { cursor: pointer; padding: 6px 10px; display: flex; gap: 10px; align-items: center; }
summary .id { font-family: var(--mono); font-weight: 600; }
summary .facts { margin-left: auto; color: var(--muted); font-variant-numeric: tabular-nums; }
pre { margin: 0; padding: 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font: 12px/1.45 var(--mono);
  border-top: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; background: var(--panel); }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, td.mono { font-family: var(--mono); font-size: 12px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; border: 1px solid var(--line); color: var(--muted); }
.badge.volatile { color: var(--warn); border-color: var(--warn); }
.level-warning { color: var(--warn); }
.level-error { color: var(--err); }
.toolbar { display: flex; gap: 8px; margin: 4px 0; }
button { font: inherit; padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--panel); color: var(--fg); cursor: pointer; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 0; }
.pair.labels { font-weight: 600; padding: 4px 10px; gap: 20px; }
.pair > pre { border-top: 1px solid var(--line); }
.pair > pre + pre { border-left: 1px solid var(--line); }
ins.add, del.rm { text-decoration: none; display: block; }
ins.add { background: var(--add); }
del.rm { background: var(--rm); }
.status-added .id::before { content: "+ "; }
.status-removed .id::before { content: "− "; }
.status-changed .id::before { content: "~ "; }
`

/** Clicking a bar segment opens its section; the buttons open or close every section. */
export const SCRIPT = `
(function () {
  "use strict";
  function openTarget(id) {
    var target = document.getElementById(id);
    if (!target) return;
    if (target.tagName === "DETAILS") target.open = true;
    target.scrollIntoView({ block: "start" });
  }
  document.querySelectorAll(".seg[data-target]").forEach(function (seg) {
    seg.addEventListener("click", function () { openTarget(seg.getAttribute("data-target")); });
    seg.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); openTarget(seg.getAttribute("data-target")); }
    });
  });
  document.querySelectorAll("button[data-action]").forEach(function (button) {
    button.addEventListener("click", function () {
      var open = button.getAttribute("data-action") === "expand";
      var scope = document.getElementById(button.getAttribute("data-scope"));
      if (!scope) return;
      scope.querySelectorAll("details").forEach(function (d) { d.open = open; });
    });
  });
})();
`

/** Options of a page. */
export interface PageOptions {
  /** Leave the script out (a page without controls), so the policy allows no script at all. */
  script?: boolean
  /** Reload the page every so many seconds (a live page, without a script). */
  refreshSeconds?: number
  /** Name an empty icon, so a browser asks its server for no /favicon.ico (a page a server serves). */
  noIcon?: boolean
}

/**
 * A whole self-contained report page: the content-security policy, the shared style (plus `style`), the script
 * unless left out.
 */
export function htmlPage(title: string, body: readonly string[], style = "", options: PageOptions = {}): string {
  const script = options.script ?? true
  const head =
    (options.refreshSeconds !== undefined ? `\n<meta http-equiv="refresh" content="${options.refreshSeconds}">` : "") +
    (options.noIcon ? '\n<link rel="icon" href="data:,">' : "")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(script)}">${head}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}${style}</style>
</head>
<body>
${body.join("\n")}
${script ? `<script>${SCRIPT}</script>\n` : ""}</body>
</html>
`
}
