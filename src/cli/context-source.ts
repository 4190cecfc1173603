import { realpath } from "node:fs/promises"
import { resolve } from "node:path"
import { loadConfig, type PromptlineConfig } from "../config/config.js"
import { rememberTrust, trustOf } from "../config/trust.js"
import { type GatherResult, gather } from "../context/gather.js"
import { loadContext, type PromptContext, parseContext } from "../context/prompt-context.js"
import { type TrustHints, untrustedDiagnostics } from "../context/untrusted.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { providerOf, UNKNOWN_PROVIDER } from "../models/resolve.js"
import { type ContextFlags, DEFAULT_MODEL, homeOf, workspaceOptions } from "./context-options.js"
import type { CliIO } from "./io.js"

/** Why project MCP servers did or did not start, for doctor and the diagnostics. */
export interface McpTrust {
  start: boolean
  /** The one word for it: trusted (they may start), declined (a no, given or recorded), or not trusted (no answer yet, or --no-trust). */
  verdict: "trusted" | "declined" | "not trusted"
  /** What decided it, without repeating the verdict. */
  why: string
  /** The user's config file that holds the answer, when one is recorded there. */
  recordedIn?: string
}

/** How to enable what trust left out, on the command line. */
const CLI_HINTS: TrustHints = {
  files: "--no-trust was given; leave it out to read them",
  servers: "pass --trust to start them",
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
  if (flags.trust === true) return { trust: { start: true, verdict: "trusted", why: "--trust" }, diagnostics: [] }
  if (flags.trust === false)
    return { trust: { start: false, verdict: "not trusted", why: "--no-trust" }, diagnostics: [] }
  const known = trustOf(config, workspace)
  if (known.state === "trusted") {
    const why = `${known.folder} is a trusted folder`
    return { trust: { start: true, verdict: "trusted", why, recordedIn: config.userFile }, diagnostics: [] }
  }
  if (known.state === "declined") {
    const why = `for ${known.folder}`
    return { trust: { start: false, verdict: "declined", why, recordedIn: config.userFile }, diagnostics: [] }
  }
  if (servers.length === 0 || !io.question) {
    const how = `pass --trust, or add the folder to "trustedFolders" in ${config.userFile}`
    const diagnostics =
      servers.length === 0
        ? []
        : [
            diagnostic(
              "warning",
              "mcp-untrusted",
              `${servers.length} project MCP server${servers.length === 1 ? "" : "s"} (${servers.join(", ")}) not started: not trusted: ${how}`,
            ),
          ]
    return { trust: { start: false, verdict: "not trusted", why: how }, diagnostics }
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
  const trust: McpTrust = {
    start: yes,
    verdict: yes ? "trusted" : "declined",
    why: `you answered ${yes ? "yes" : "no"}`,
  }
  return { trust: diagnostics.length === 0 ? { ...trust, recordedIn: config.userFile } : trust, diagnostics }
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
  /** The project config file that chose who serves the model, when no flag and not the user's own file did. */
  providerChosenBy?: string
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
  const chosenBy =
    flags.model || flags.provider || config.providerFile === config.userFile ? undefined : config.providerFile
  const provider = flags.provider ?? (flags.model ? undefined : config.provider) ?? providerOf(id) ?? UNKNOWN_PROVIDER
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
  // With --no-mcp nothing starts whatever the answer: no question is asked.
  const servers = decidedEarly || flags.mcp === false ? [] : untrustedServers(gathered.report)
  const { trust, diagnostics } = await resolveMcpTrust(flags, io, config, gathered.context.cwd, servers)
  if (trust.start && !decidedEarly && servers.length > 0) gathered = await run(true)
  // What trust left out, in the command line's words: the project-MCP warning is resolveMcpTrust's (above), and
  // project files are skipped only with --no-trust.
  const gatherDiagnostics = gathered.diagnostics.filter(
    (d) => d.code !== "mcp-untrusted" && d.code !== "project-untrusted",
  )
  const skipped = untrustedDiagnostics(gathered.report, CLI_HINTS, { servers: false })
  return {
    ...gathered,
    diagnostics: [...configDiagnostics, ...diagnostics, ...skipped, ...gatherDiagnostics],
    config,
    mcpTrust: trust,
    ...(chosenBy ? { providerChosenBy: chosenBy } : {}),
  }
}
