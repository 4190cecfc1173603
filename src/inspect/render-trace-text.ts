/** The terminal rendering of `inspect --trace`: the window bar, sections, tools, the cache layout and the verdict. */
import { describeCalibration } from "./calibration-text.js"
import { windowLines } from "./render-window-text.js"
import { bar, num, painter, pct, right, wrap } from "./text.js"
import type { TraceReport } from "./trace-report.js"

/** Renders a trace report for a terminal `width` columns wide. */
export function renderTraceText(report: TraceReport, options: { color: boolean; width: number }): string {
  const paint = painter(options.color)
  const width = options.width
  const out: string[] = []
  const heading = (text: string) => out.push("", ...wrap(text, width, "  ").map((l) => paint("bold", l)))
  out.push(
    paint("bold", `Request ${report.request} of ${report.requests}: ${report.model.id}`),
    ...wrap(`${report.clientApi} client → ${report.upstream} · ${report.file}`, width, "  "),
  )
  if (report.calibration) out.push(...wrap(`Calibration: ${describeCalibration(report.calibration)}`, width, "  "))
  heading(
    `Context window: ${num(report.window.used)} of ${num(report.window.window)} tokens used, ${num(report.window.free)} free`,
  )
  out.push(...windowLines(report.window, width, paint))
  if (report.messagesFrom === "layout")
    out.push(...wrap("Message kinds read from the wire units (this format has no request decoder yet).", width, "  "))
  const table = (rows: { name: string; tokens: number }[], total: number) => {
    const name = Math.max(8, Math.min(40, width - 34))
    for (const r of rows) {
      const share = total > 0 ? r.tokens / total : 0
      out.push(
        `  ${r.name.slice(0, name).padEnd(name)} ${right(num(r.tokens), 8)} ${right(pct(share), 6)} ${bar(share, 12)}`,
      )
    }
  }
  const system = report.sections.reduce((n, s) => n + s.tokens, 0)
  heading(`System prompt: ${report.sections.length} sections, ${num(system)} tokens`)
  table(report.sections, system)
  const tools = report.tools.reduce((n, t) => n + t.tokens, 0)
  heading(`Tools: ${report.tools.length}, ${num(tools)} tokens`)
  table(report.tools, tools)
  heading("Cache layout")
  out.push(...wrap(`Order: ${report.cache.order}.`, width, "  ").map((l) => `  ${l}`))
  out.push(
    `  Prefix shared with the previous request: ${num(report.cache.shared)} of ${num(report.cache.total)} tokens`,
  )
  for (const b of report.cache.breakpoints) out.push(`  breakpoint at ${b.path} (${b.ttl}): ${num(b.tokens)} tokens`)
  const v = report.cache.verdict
  const style = v.verdict === "miss" ? "red" : v.verdict === "hit" ? "green" : "cyan"
  heading("Verdict")
  out.push(...wrap(report.cache.summary, width - 2, "  ").map((l) => `  ${paint(style, l)}`))
  heading(`Conversation: ${report.requests} requests`)
  for (const t of report.timeline) {
    const mark = t.n === report.request ? ">" : " "
    const share = t.total > 0 ? t.read / t.total : 0
    const line = `${mark} #${String(t.n).padEnd(4)} ${t.verdict.padEnd(5)} ${right(num(t.total), 9)} tokens ${right(pct(share), 6)} cached${t.cause ? `  ${t.cause}` : ""}`
    out.push(` ${t.verdict === "miss" ? paint("red", line) : line}`)
  }
  return `${out.join("\n")}\n`
}
