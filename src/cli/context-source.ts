import { resolve } from "node:path"
import { type GatherResult, gather } from "../context/gather.js"
import { loadContext, type PromptContext, parseContext } from "../context/prompt-context.js"
import type { Diagnostic } from "../diagnostics.js"
import { providerOf } from "../models/resolve.js"
import { type ContextFlags, DEFAULT_MODEL, workspaceOptions } from "./context-options.js"
import type { CliIO } from "./io.js"

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
