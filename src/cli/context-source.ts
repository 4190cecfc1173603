import { resolve } from "node:path"
import { Option } from "commander"
import { type GatherResult, gather } from "../context/gather.js"
import { loadContext, type PromptContext, parseContext } from "../context/prompt-context.js"
import type { Diagnostic } from "../diagnostics.js"
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

/** Gather options from a command's workspace flags: the CLI trusts the folder it is pointed at by default. */
export function workspaceOptions(flags: Pick<ContextFlags, "cwd" | "trust" | "mcp">, io: CliIO) {
  return {
    cwd: resolve(io.cwd, flags.cwd ?? "."),
    date: io.today(),
    env: io.env,
    ...(io.env.HOME ? { home: io.env.HOME } : {}),
    trust: flags.trust ?? true,
    mcp: flags.mcp ?? true,
  }
}

/** Adds the context flags to a command. */
export function contextOptions(): Option[] {
  return [
    new Option("--context <file>", "read the context from a JSON file instead of gathering the workspace"),
    new Option("--cwd <dir>", "the workspace to gather (default: the current directory)"),
    new Option("--model <id>", `model id (default: ${DEFAULT_MODEL})`),
    new Option("--provider <name>", "who serves the model (default: guessed from the id)"),
    new Option("--variant <id>", "force a prompt variant instead of matching one"),
    new Option("--tool-calling <dialect>", "override the variant's tool-calling dialect").choices(["native", "xml"]),
    new Option("--placement <where>", "where project facts go").choices(["system", "context-message"]),
    new Option("--trust", "read project-level files and start project MCP servers (default)"),
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
 * The context a command works on: a context file with the flags applied, or a gather of the
 * workspace. The CLI trusts the folder it is pointed at unless told `--no-trust`.
 */
export async function contextFrom(
  flags: ContextFlags,
  io: CliIO,
): Promise<{
  context: PromptContext
  diagnostics: Diagnostic[]
  report?: GatherResult["report"]
  mcpConfigs?: GatherResult["mcpConfigs"]
}> {
  if (flags.context)
    return { context: applyFlags(await loadContext(resolve(io.cwd, flags.context)), flags), diagnostics: [] }
  const id = flags.model ?? DEFAULT_MODEL
  const gathered = await gather({
    ...workspaceOptions(flags, io),
    model: { id, provider: flags.provider ?? providerOf(id) ?? "anthropic" },
    ...(flags.variant ? { variant: flags.variant } : {}),
    ...(flags.toolCalling ? { toolCalling: flags.toolCalling } : {}),
    ...(flags.placement ? { placement: flags.placement } : {}),
  })
  return gathered
}
