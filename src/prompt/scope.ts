import type { PromptContext } from "../context/prompt-context.js"
import type { ModelInfo } from "../models/types.js"
import type { Selection } from "../tools/select.js"
import type { Variant } from "./variant.js"

/**
 * The template scope, in layers: variant values, then standard values, then (for a variant
 * template) rendered sections, then the context's runtime overrides. Stable sections and tool
 * descriptions see only the stable scope, which holds no per-project or per-day value: a template
 * that reads the date or the cwd outside a volatile section fails, so the cached prefix cannot move.
 */

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".")
  let node = target
  for (const key of keys.slice(0, -1)) {
    const next = node[key]
    node[key] = next !== null && typeof next === "object" ? { ...(next as object) } : {}
    node = node[key] as Record<string, unknown>
  }
  node[keys[keys.length - 1]!] = value
}

function applyOverrides(scope: Record<string, unknown>, context: PromptContext): Record<string, unknown> {
  for (const [path, value] of Object.entries(context.overrides ?? {})) {
    if (!path.startsWith("sections.")) setPath(scope, path, value)
  }
  return scope
}

/** Values that do not change from project to project or day to day. */
export function stableScope(
  context: PromptContext,
  variant: Variant,
  model: ModelInfo,
  toolCalling: "native" | "xml",
  selection: Selection,
): Record<string, unknown> {
  return applyOverrides(
    {
      // Defaults of values a variant may set (a template may read them in every variant).
      brief: false,
      ...(variant.values ?? {}),
      model: { id: model.id, provider: model.provider, family: model.family },
      agent: { name: context.agent.name },
      mode: context.mode,
      autonomy: context.autonomy,
      interactive: context.interactive,
      audience: context.audience,
      features: {
        browser: context.features.browser ?? false,
        web_tools: context.features.webTools ?? false,
        subagents: context.features.subagents ?? false,
        task_progress: context.features.taskProgress ?? false,
      },
      tool_calling: toolCalling,
      variant: variant.id,
      has_mcp: selection.tools.some((t) => t.spec.kind === "mcp" || t.spec.kind === "mcp_call"),
      tools: { by_kind: selection.byKind, names: selection.tools.map((t) => t.name) },
      params: selection.params,
    },
    context,
  )
}

/** The stable scope plus the per-project and per-day values: for volatile sections only. */
export function volatileScope(stable: Record<string, unknown>, context: PromptContext): Record<string, unknown> {
  return applyOverrides(
    {
      ...stable,
      cwd: context.cwd,
      date: context.date,
      os: context.platform.os,
      os_version: context.platform.osVersion ?? "",
      shell: context.platform.shell,
      home: context.platform.home,
      git_branch: context.git?.branch ?? "",
    },
    context,
  )
}
