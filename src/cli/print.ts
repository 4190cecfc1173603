import { type Diagnostic, formatDiagnostic } from "../diagnostics.js"
import type { CliIO } from "./io.js"

/** Writes a value as pretty JSON with a trailing newline. */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`)
}

/** Writes diagnostics to stderr, one line each; info lines only when verbose. */
export function printDiagnostics(io: CliIO, diagnostics: readonly Diagnostic[], verbose = false): void {
  for (const d of diagnostics) if (verbose || d.level !== "info") io.stderr(`${formatDiagnostic(d)}\n`)
}
