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

/** Renders the doctor report as text: the workspace, each group of entries, diagnostics, a summary. */
export function renderDoctor(
  result: GatherResult,
  trusted: boolean,
  diagnostics: readonly Diagnostic[],
  mcpTrust?: McpTrust,
): string {
  const { context, report } = result
  const git = context.git
    ? `git root ${context.git.root}${context.git.branch ? `, branch ${context.git.branch}` : ""}`
    : "not a git repository"
  const lines = [`Workspace ${context.cwd} (${git}); ${trusted ? "trusted" : "NOT trusted"}`]
  if (!trusted)
    lines.push("  Project files and project MCP servers were listed but not used; pass --trust to use them.")
  else if (mcpTrust)
    lines.push(`  Project MCP servers ${mcpTrust.start ? "may start" : "do not start"}: ${mcpTrust.why}.`)
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
      const trusted = flags.trust !== false
      const { contextFrom } = await import("./context-source.js")
      const got = await contextFrom({ ...flags, model: NO_MODEL.id, provider: NO_MODEL.provider }, io)
      const result: GatherResult = {
        context: got.context,
        diagnostics: got.diagnostics,
        report: got.report!,
        mcpConfigs: got.mcpConfigs ?? [],
      }
      const missing = missingInstructions(result)
      const diagnostics = missing ? [...result.diagnostics, missing] : result.diagnostics
      if (flags.json) {
        const { context, report } = result
        const mcp = got.mcpTrust ?? null
        const out = { cwd: context.cwd, trusted, mcpTrust: mcp, git: context.git ?? null, report, diagnostics }
        io.stdout(`${JSON.stringify(out, null, 2)}\n`)
      } else io.stdout(renderDoctor(result, trusted, diagnostics, got.mcpTrust))
      setExit(diagnostics.some((d) => d.level === "error") ? 1 : 0)
    })
