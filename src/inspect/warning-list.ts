import type { Diagnostic } from "../diagnostics.js"
import type { InspectReport } from "./report-types.js"

/** The one list of problems a report shows, and the notes that go with it. */
export interface WarningList {
  /** Errors, then warnings: from gathering, the build, the last-run file and the report's own checks. */
  problems: Diagnostic[]
  /** The report's own notes (info level): tool changes since the last run, a prefix too short to cache. */
  notes: Diagnostic[]
}

const key = (d: Diagnostic) => `${d.level}\u0000${d.code}\u0000${d.path ?? ""}\u0000${d.line ?? ""}\u0000${d.message}`

/** Gathers every warning of a report into one list, printed once; the same diagnostic twice is kept once. */
export function warningList(report: Pick<InspectReport, "warnings" | "diagnostics">): WarningList {
  const seen = new Set<string>()
  const all = [...report.diagnostics, ...report.warnings].filter((d) => {
    const k = key(d)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
  return {
    problems: [...all.filter((d) => d.level === "error"), ...all.filter((d) => d.level === "warning")],
    notes: report.warnings.filter((d) => d.level === "info"),
  }
}
