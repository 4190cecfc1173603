import { Command } from "commander"
import type { GatherResult } from "../context/gather.js"
import type { GatherEntry } from "../context/report.js"
import { type Diagnostic, diagnostic, formatDiagnostic } from "../diagnostics.js"
import type { McpTrust } from "./context-source.js"
import type { CliIO } from "./io.js"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline doctor`. */
interface DoctorFlags {
  cwd?: string
  trust?: boolean
  mcp?: boolean
  json?: boolean
}

/** The model doctor names in the context it gathers; no build happens, so any id does. */
const NO_MODEL = { id: "none", provider: "none" }

/** A warning when the project has no instruction file at all (whatever their status). */
export function missingInstructions(result: GatherResult): Diagnostic | undefined {
  if (result.report.instructions.some((e) => e.scope === "project")) return undefined
  return diagnostic(
    "warning",
    "no-instructions",
    "the project has no instruction files (AGENTS.md, CLAUDE.md, .cursor/rules, ...): the agent knows nothing specific about it",
    { path: "." },
  )
}

function describe(e: GatherEntry): string {
  const parts: string[] = []
  if (e.convention) parts.push(e.convention)
  if (e.globs) parts.push(`globs: ${e.globs.join(", ")}`)
  if (e.reason) parts.push(e.reason)
  if (e.detail) parts.push(e.detail)
  return parts.join(" · ")
}

function section(title: string, entries: readonly GatherEntry[]): string[] {
  const lines = [`${title} (${entries.length} considered)`]
  if (entries.length === 0) lines.push("  none found")
  const width = Math.min(48, Math.max(0, ...entries.map((e) => e.path.length)))
  for (const e of entries) lines.push(`  ${e.status.padEnd(11)} ${e.path.padEnd(width)}  ${describe(e)}`.trimEnd())
  return lines
}

function counts(entries: readonly GatherEntry[]): string {
  const by = new Map<string, number>()
  for (const e of entries) by.set(e.status, (by.get(e.status) ?? 0) + 1)
  return [...by].map(([status, n]) => `${n} ${status}`).join(", ") || "none"
}

/**
 * The workspace's trust, said once: the verdict and what decided it on the first line, what it means for project
 * files and project MCP servers on the second. `connect` false: MCP servers are switched off (--no-mcp).
 */
export function trustLines(trust: McpTrust, connect = true): [string, string] {
  const off = connect ? "" : " (none is started now: --no-mcp)"
  const why = `${trust.why}${trust.recordedIn ? `, recorded in ${trust.recordedIn}` : ""}`
  if (trust.why === "--no-trust")
    return ["not trusted (--no-trust)", "Project files and project MCP servers are listed, none is used."]
  if (trust.verdict === "trusted")
    return [`trusted (${why})`, `Project files are read and project MCP servers may start${off}.`]
  if (trust.verdict === "declined") {
    const again = trust.recordedIn ? "; to be asked again, take the folder out of that file" : ""
    return [
      `declined (${why})`,
      `Project files are read; project MCP servers are not started (--trust starts them${again}).`,
    ]
  }
  return ["not trusted", `Project files are read; project MCP servers are not started: ${trust.why}.`]
}

/** Renders the doctor report as text: the workspace and its trust, each group of entries, diagnostics, a summary. */
export function renderDoctor(
  result: GatherResult,
  trust: McpTrust,
  diagnostics: readonly Diagnostic[],
  connect = true,
): string {
  const { context, report } = result
  const git = context.git
    ? `git root ${context.git.root}${context.git.branch ? `, branch ${context.git.branch}` : ""}`
    : "not a git repository"
  const [verdict, meaning] = trustLines(trust, connect)
  const lines = [`Workspace ${context.cwd} (${git}); ${verdict}`, `  ${meaning}`]
  lines.push("", ...section("Instruction files", report.instructions))
  lines.push("", ...section("Skills", report.skills))
  lines.push("", ...section("MCP servers", report.mcpServers))
  if (diagnostics.length > 0) lines.push("", "Diagnostics", ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`))
  const errors = diagnostics.filter((d) => d.level === "error").length
  const warnings = diagnostics.filter((d) => d.level === "warning").length
  lines.push(
    "",
    `Summary: instructions ${counts(report.instructions)}; skills ${counts(report.skills)}; MCP servers ${counts(report.mcpServers)}; ${errors} error(s), ${warnings} warning(s)`,
  )
  return `${lines.join("\n")}\n`
}

/** `promptline doctor`: lists every instruction file, skill and MCP server considered, with status and reason. */
export const doctorCommand: CommandFactory = (io: CliIO, setExit) =>
  new Command("doctor")
    .description("list every instruction file, skill and MCP server considered, with its status and why")
    .option("--cwd <dir>", "the workspace to examine (default: the current directory)")
    .option("--trust", "also start the project's MCP servers without asking")
    .option("--no-trust", "show what an untrusted workspace gives: project files listed, none used")
    .option("--no-mcp", "list MCP servers without starting or connecting to them")
    .option("--json", "print the report as JSON")
    .action(async (flags: DoctorFlags) => {
      const { contextFrom } = await import("./context-source.js")
      const got = await contextFrom({ ...flags, model: NO_MODEL.id, provider: NO_MODEL.provider }, io)
      const result: GatherResult = {
        context: got.context,
        diagnostics: got.diagnostics,
        report: got.report!,
        mcpConfigs: got.mcpConfigs ?? [],
      }
      const missing = missingInstructions(result)
      // The report's first lines give the trust verdict; the warning that says it again for other commands is left out.
      const diagnostics = [...result.diagnostics, ...(missing ? [missing] : [])].filter(
        (d) => d.code !== "mcp-untrusted",
      )
      const trust = got.mcpTrust ?? { start: false, verdict: "not trusted" as const, why: "--no-trust" }
      if (flags.json) {
        const { context, report } = result
        const out = {
          cwd: context.cwd,
          trusted: trust.verdict === "trusted",
          projectFiles: flags.trust === false ? "listed" : "read",
          mcpTrust: trust,
          git: context.git ?? null,
          report,
          diagnostics,
        }
        io.stdout(`${JSON.stringify(out, null, 2)}\n`)
      } else io.stdout(renderDoctor(result, trust, diagnostics, flags.mcp !== false))
      setExit(diagnostics.some((d) => d.level === "error") ? 1 : 0)
    })
