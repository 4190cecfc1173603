/** How serious a diagnostic is: errors mean something the user asked for did not happen. */
export type DiagnosticLevel = "error" | "warning" | "info"

/** A finding returned as data: what happened, where, and a stable code to match on. */
export interface Diagnostic {
  level: DiagnosticLevel
  /** Stable, kebab-case identifier, e.g. `component-failed` or `instruction-skipped`. */
  code: string
  message: string
  /** File or logical path the finding is about (POSIX form). */
  path?: string
  /** 1-based line in `path`, when known. */
  line?: number
}

/** Creates a diagnostic; `where` adds a path and line when the finding is about a file. */
export function diagnostic(
  level: DiagnosticLevel,
  code: string,
  message: string,
  where?: { path?: string; line?: number },
): Diagnostic {
  const d: Diagnostic = { level, code, message }
  if (where?.path !== undefined) d.path = where.path
  if (where?.line !== undefined) d.line = where.line
  return d
}

/** Formats a diagnostic as one line: `warning path:line: message [code]`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.path ? `${d.path}${d.line ? `:${d.line}` : ""}: ` : ""
  return `${d.level} ${where}${d.message} [${d.code}]`
}
