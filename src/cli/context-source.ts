import { realpath } from "node:fs/promises"
import { homedir } from "node:os"
import { resolve } from "node:path"
import { Option } from "commander"
import { loadConfig, type PromptlineConfig } from "../config/config.js"
import { rememberTrust, trustOf } from "../config/trust.js"
import { type GatherResult, gather } from "../context/gather.js"
import { loadContext, type PromptContext, parseContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { providerOf } from "../models/resolve.js"
import type { CliIO } from "./io.js"

/** The default model when none is given. */
export const DEFAULT_MODEL = "claude-sonnet-4-5"

/** Flags every command that builds a context accepts. */
export interface ContextFlags {
  context?: string
  cwd?: string
  model?: string
  provider?: string
  variant?: string
  toolCalling?: "native" | "xml"
  placement?: "system" | "context-message"
  trust?: boolean
  mcp?: boolean
}

/** The home folder the CLI works with: `HOME` from its environment, else the user's. */
export const homeOf = (io: CliIO): string => io.env.HOME ?? homedir()

/**
 * Gather options from a command's workspace flags. The CLI reads the project files of the folder it is pointed
 * at (`--no-trust` turns that off); project MCP servers start only with `--trust`, a trusted folder in the
 * user's config, or a yes at the terminal (see `resolveMcpTrust`).
 */
export function workspaceOptions(flags: Pick<ContextFlags, "cwd" | "trust" | "mcp">, io: CliIO) {
  return {
    cwd: resolve(io.cwd, flags.cwd ?? "."),
    date: io.today(),
    env: io.env,
    ...(io.env.HOME ? { home: io.env.HOME } : {}),
    trust: flags.trust ?? true,
    trustMcp: flags.trust === true,
    mcp: flags.mcp ?? true,
  }
}

/** Why project MCP servers did or did not start, for doctor and the diagnostics. */
export interface McpTrust {
  start: boolean
  why: string
}

/** Project MCP servers that a gather left out because the workspace is not trusted to start them. */
function untrustedServers(report: GatherResult["report"]): string[] {
  return report.mcpServers
    .filter((e) => e.scope === "project" && e.status === "skipped" && /not trusted/.test(e.reason ?? ""))
    .map((e) => e.path)
}

/**
 * Decides whether a workspace's own MCP servers may start: `--trust`/`--no-trust`, then the user's config, then
 * (only at a terminal, and only when the workspace has such servers) one question whose answer is recorded.
 */
async function resolveMcpTrust(
  flags: Pick<ContextFlags, "trust">,
  io: CliIO,
  config: PromptlineConfig,
  workspace: string,
  servers: string[],
): Promise<{ trust: McpTrust; diagnostics: Diagnostic[] }> {
  if (flags.trust === true) return { trust: { start: true, why: "--trust" }, diagnostics: [] }
  if (flags.trust === false) return { trust: { start: false, why: "--no-trust" }, diagnostics: [] }
  const known = trustOf(config, workspace)
  if (known.state === "trusted")
    return { trust: { start: true, why: `trusted folder ${known.folder} in ${config.userFile}` }, diagnostics: [] }
  if (known.state === "declined")
    return { trust: { start: false, why: `declined for ${known.folder} in ${config.userFile}` }, diagnostics: [] }
  if (servers.length === 0 || !io.question) {
    const why = `not trusted: pass --trust, or add the folder to "trustedFolders" in ${config.userFile}`
    const diagnostics =
      servers.length === 0
        ? []
        : [
            diagnostic(
              "warning",
              "mcp-untrusted",
              `${servers.length} project MCP server${servers.length === 1 ? "" : "s"} (${servers.join(", ")}) not started: ${why}`,
            ),
          ]
    return { trust: { start: false, why }, diagnostics }
  }
  const answer = await io.question(
    `This workspace defines MCP servers (${servers.join(", ")}): commands it chose, which promptline would start.\nStart them, now and from now on in ${workspace}? [y/N] `,
  )
  const yes = /^y(es)?$/i.test(answer.trim())
  const diagnostics: Diagnostic[] = []
  try {
    await rememberTrust(config.userFile, workspace, yes)
  } catch (error) {
    const message = `cannot record the answer in ${config.userFile} (${(error as Error).message}); you will be asked again`
    diagnostics.push(diagnostic("warning", "trust-unrecorded", message))
  }
  return { trust: { start: yes, why: yes ? "you answered yes (recorded)" : "you answered no (recorded)" }, diagnostics }
}

/** Adds the context flags to a command. */
export function contextOptions(): Option[] {
  return [
    new Option("--context <file>", "read the context from a JSON file instead of gathering the workspace"),
    new Option("--cwd <dir>", "the workspace to gather (default: the current directory)"),
    new Option("--model <id>", `model id (default: "model" in promptline.config.json, else ${DEFAULT_MODEL})`),
    new Option("--provider <name>", "who serves the model (default: guessed from the id)"),
    new Option("--variant <id>", "force a prompt variant instead of matching one"),
    new Option("--tool-calling <dialect>", "override the variant's tool-calling dialect").choices(["native", "xml"]),
    new Option("--placement <where>", "where project facts go").choices(["system", "context-message"]),
    new Option("--trust", "also start the project's MCP servers without asking"),
    new Option("--no-trust", "skip project-level files and project MCP servers"),
    new Option("--no-mcp", "do not start or connect to MCP servers"),
  ]
}

function applyFlags(base: PromptContext, flags: ContextFlags): PromptContext {
  const model = flags.model
    ? { id: flags.model, provider: flags.provider ?? providerOf(flags.model) ?? base.model.provider }
    : flags.provider
      ? { ...base.model, provider: flags.provider }
      : base.model
  return parseContext({
    ...base,
    model,
    ...(flags.variant ? { variant: flags.variant } : {}),
    ...(flags.toolCalling ? { toolCalling: flags.toolCalling } : {}),
    ...(flags.placement ? { placement: flags.placement } : {}),
  })
}

/**
 * The context a command works on: a context file with the flags applied, or a gather of the workspace, with
 * the settings of promptline.config.json (default model, extra model rows) and the MCP trust decision.
 */
export async function contextFrom(
  flags: ContextFlags,
  io: CliIO,
): Promise<{
  context: PromptContext
  diagnostics: Diagnostic[]
  config: PromptlineConfig
  report?: GatherResult["report"]
  mcpConfigs?: GatherResult["mcpConfigs"]
  mcpTrust?: McpTrust
}> {
  const given = workspaceOptions(flags, io)
  const options = { ...given, cwd: await realpath(given.cwd).catch(() => given.cwd) }
  const { config, diagnostics: configDiagnostics } = await loadConfig({
    cwd: options.cwd,
    home: homeOf(io),
    env: io.env,
  })
  if (flags.context) {
    const context = applyFlags(await loadContext(resolve(io.cwd, flags.context)), flags)
    return { context, diagnostics: configDiagnostics, config }
  }
  const id = flags.model ?? config.model ?? DEFAULT_MODEL
  const provider = flags.provider ?? (flags.model ? undefined : config.provider) ?? providerOf(id) ?? "anthropic"
  const run = (trustMcp: boolean) =>
    gather({
      ...options,
      trustMcp,
      model: { id, provider },
      ...(flags.variant ? { variant: flags.variant } : {}),
      ...(flags.toolCalling ? { toolCalling: flags.toolCalling } : {}),
      ...(flags.placement ? { placement: flags.placement } : {}),
    })
  const decidedEarly = flags.trust !== undefined || trustOf(config, options.cwd).state !== "unknown"
  let gathered = await run(
    decidedEarly ? flags.trust === true || trustOf(config, options.cwd).state === "trusted" : false,
  )
  const servers = decidedEarly ? [] : untrustedServers(gathered.report)
  const { trust, diagnostics } = await resolveMcpTrust(flags, io, config, gathered.context.cwd, servers)
  if (trust.start && !decidedEarly && servers.length > 0) gathered = await run(true)
  return {
    ...gathered,
    diagnostics: [...configDiagnostics, ...diagnostics, ...gathered.diagnostics],
    config,
    mcpTrust: trust,
  }
}
