/** The words of the calibration and exact-count parts of the inspect reports, shared by the text and HTML renderers. */
import type { CalibrationReport, ExactCount } from "./report-types.js"
import { num, signed } from "./text.js"

const SOURCES: Record<CalibrationReport["source"], string> = {
  endpoint: "the counting endpoint",
  session: "session",
  trace: "reported usage in the trace",
}

/** One calibration in words: `reported ÷ counted 1.083 over 5 requests (session 2026…)`. */
export function describeCalibration(c: CalibrationReport): string {
  const what = c.source === "endpoint" ? "exact ÷ counted" : "reported ÷ counted"
  const over = `${c.samples} ${c.source === "endpoint" ? "count" : "request"}${c.samples === 1 ? "" : "s"}`
  const from = c.source === "session" ? `session ${c.from}` : SOURCES[c.source]
  return `${what} ${c.ratio.toFixed(3)} over ${over} (${from}; the context manager's moving ratio for ${c.model})`
}

/** The calibration line under "Tokens", or undefined without calibrations. */
export function calibrationLine(calibrations: readonly CalibrationReport[] | undefined): string | undefined {
  if (!calibrations || calibrations.length === 0) return undefined
  return `Calibration: ${calibrations.map(describeCalibration).join("; ")}`
}

/** One row of the exact-count table: part, exact, estimated, delta, ratio. */
export interface ExactRow {
  part: string
  exact: number
  estimated: number
  delta: string
  ratio: string
}

const ratioOf = (exact: number, estimated: number) => (estimated > 0 ? (exact / estimated).toFixed(3) : "–")

/** The heading and rows of the exact-count part of the report. */
export function exactRows(exact: ExactCount): { heading: string; note?: string; rows: ExactRow[] } {
  if (exact.status === "unavailable")
    return {
      heading: `Exact count: unavailable, ${num(exact.estimated)} tokens estimated`,
      note: `${exact.reason} [${exact.code}]`,
      rows: [],
    }
  const row = (part: string, e: number, est: number): ExactRow => ({
    part,
    exact: e,
    estimated: est,
    delta: signed(e - est),
    ratio: ratioOf(e, est),
  })
  const rows = [...exact.parts.map((p) => row(p.id, p.exact, p.estimated)), row("total", exact.exact, exact.estimated)]
  const probe = exact.probeMessage ? " An empty conversation was counted as one short user message on both sides." : ""
  return {
    heading: `Exact count: ${num(exact.exact)} tokens by the ${exact.format} counting endpoint, ${num(exact.estimated)} estimated (ratio ${exact.ratio.toFixed(3)})`,
    note: `Answered by ${exact.endpoint} (key from ${exact.keySource}) in ${exact.requests} request${exact.requests === 1 ? "" : "s"}; each part is the whole request less the request without it (messages: the rest).${probe}`,
    rows,
  }
}
