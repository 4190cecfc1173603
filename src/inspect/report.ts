import type { PromptContext } from "../context/prompt-context.js"
import type { GatherEntry, GatherReport } from "../context/report.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { Message } from "../history/message.js"
import { overheadOf, type TokenCounter } from "../history/tokens.js"
import type { TokenizerFamily } from "../models/types.js"
import type { BuiltPrompt } from "../prompt/builder.js"
import { descriptorOf } from "../providers/descriptors.js"
import type { EnabledTool } from "../tools/spec.js"
import { renderXmlTool } from "../tools/xml.js"
import { mcpServerReports, skillReports } from "./gather-parts.js"
import { compareToolOrder, type LastRun } from "./last-run.js"
import type {
  BarSegment,
  CacheLayoutReport,
  CountingInfo,
  DeferredToolReport,
  InspectReport,
  InstructionLine,
  InstructionsReport,
  PrefixItem,
  SectionReport,
  TokenTotals,
  ToolReport,
  ToolSearchReport,
} from "./report-types.js"
import { num, pct } from "./text.js"
import { volatileWarnings } from "./volatile-warnings.js"
import { windowView } from "./window-view.js"

export type * from "./report-types.js"

/** What one inspect report needs: a build, the context it came from, a token counter, and what else is known. */
export interface InspectInput {
  built: BuiltPrompt
  context: PromptContext
  /** The context manager's counter, so the figures match what `fit` counts. */
  counter: TokenCounter
  /** Gather's report; absent when the context came from a file. */
  gather?: GatherReport
  /** The last run for this model, to compare the tool order with. */
  previous?: LastRun
  /** Share of the model's window above which the prompt gets a warning (default 0.1). */
  maxShare?: number
  /** Diagnostics from before the build (gathering, reading the last run). */
  diagnostics?: readonly Diagnostic[]
  /** A conversation to place in the window view, counted by kind. */
  history?: readonly Message[]
}

/** The default share of the model's window a prompt may take before a warning. */
export const DEFAULT_MAX_SHARE = 0.1

function counting(counter: TokenCounter, family: TokenizerFamily): CountingInfo {
  const exact = family === "o200k" || family === "cl100k"
  const factor = counter.factor(family)
  const description = exact
    ? `exact (${family})`
    : `estimated as o200k × ${factor} (the context manager's factor for ${family === "estimate" ? "tokenizers without a calibration" : `${family} models`})`
  return { tokenizer: family, exact, factor, description }
}

/** The native definition of the tool at `index` (Gemini's shape groups all declarations in one entry). */
function nativeDefinition(built: BuiltPrompt, index: number): unknown {
  if (descriptorOf(built.wireFormat).nativeTools === "gemini") {
    const group = built.nativeTools[0] as { functionDeclarations?: unknown[] } | undefined
    return group?.functionDeclarations?.[index]
  }
  return built.nativeTools[index]
}

function toolReports(built: BuiltPrompt, counter: TokenCounter, family: TokenizerFamily): ToolReport[] {
  const overhead = overheadOf(built.wireFormat)
  return built.tools.map((tool: EnabledTool, i) => {
    const native = built.toolCalling === "native"
    const report: ToolReport = {
      name: tool.name,
      id: tool.id,
      kind: tool.kind,
      tokens: native
        ? counter.countTools([tool], family, overhead) - overhead.toolsPreamble
        : counter.countText(renderXmlTool(tool), family),
      where: native ? "definition" : "prompt",
      definition: native ? JSON.stringify(nativeDefinition(built, i), null, 2) : renderXmlTool(tool),
      description: tool.description,
      parameters: tool.parameters,
    }
    if (tool.mcp) report.mcp = tool.mcp
    return report
  })
}

const STATUS_OF: Record<string, GatherEntry["status"]> = {
  always: "loaded",
  paths: "conditional",
  requested: "requested",
  manual: "manual",
}

function instructionsReport(input: InspectInput, family: TokenizerFamily): InstructionsReport {
  const tokensOf = new Map(input.context.instructions.map((f) => [f.path, input.counter.countText(f.text, family)]))
  if (input.gather) {
    const entries = input.gather.instructions.map((e) => {
      const tokens = tokensOf.get(e.path)
      return tokens === undefined ? { ...e } : { ...e, tokens }
    })
    return { source: "gather", entries }
  }
  const entries: InstructionLine[] = input.context.instructions.map((f) => {
    const status = f.nested ? "nested" : f.truncated ? "truncated" : STATUS_OF[f.activation.when]!
    return {
      kind: "instruction",
      path: f.path,
      scope: f.scope,
      status,
      convention: f.convention,
      reason: "in the context file",
      ...(f.activation.when === "paths" ? { globs: f.activation.globs } : {}),
      tokens: tokensOf.get(f.path)!,
    }
  })
  return {
    source: "context",
    note: "No gather report: the context came from a file, so only the files it holds are listed; files that were skipped are not known.",
    entries,
  }
}

/** The deferred tools with what each would cost loaded, and the saving of the search tools standing in for them. */
function toolSearchReport(
  built: BuiltPrompt,
  tools: ToolReport[],
  counter: TokenCounter,
  family: TokenizerFamily,
): ToolSearchReport | undefined {
  if (built.deferredTools.length === 0) return undefined
  const overhead = overheadOf(built.wireFormat)
  const native = built.toolCalling === "native"
  const deferred = built.deferredTools.map((tool): DeferredToolReport => {
    const report: DeferredToolReport = {
      name: tool.name,
      id: tool.id,
      kind: tool.kind,
      tokens: native
        ? counter.countTools([tool], family, overhead) - overhead.toolsPreamble
        : counter.countText(renderXmlTool(tool), family),
    }
    if (tool.mcp) report.mcp = tool.mcp
    return report
  })
  const deferredTokens = deferred.reduce((sum, t) => sum + t.tokens, 0)
  const searchToolsTokens = tools
    .filter((t) => t.kind === "tool_search" || t.kind === "tool_call")
    .reduce((sum, t) => sum + t.tokens, 0)
  return { deferred, deferredTokens, searchToolsTokens, savedTokens: deferredTokens - searchToolsTokens }
}

/** Builds the inspect report of a build: a pure function of its input. */
export function inspectReport(input: InspectInput): InspectReport {
  const { built, context, counter } = input
  const family = built.model.tokenizer
  const count = (text: string) => counter.countText(text, family)
  const overhead = overheadOf(built.wireFormat)

  const tools = toolReports(built, counter, family)
  const native = built.toolCalling === "native" && built.tools.length > 0
  const toolsTokens = native ? counter.countTools(built.tools, family, overhead) : 0
  const sectionTokens = built.sections.map((s) => count(s.text))
  const segmentTokens = (native ? toolsTokens : 0) + sectionTokens.reduce((a, b) => a + b, 0)
  const shareOf = (tokens: number) => (segmentTokens === 0 ? 0 : tokens / segmentTokens)

  const sections: SectionReport[] = built.sections.map((s, i) => ({
    id: s.id,
    placement: s.placement,
    volatile: s.volatile,
    tokens: sectionTokens[i]!,
    share: shareOf(sectionTokens[i]!),
    hash: s.hash,
    text: s.text,
  }))
  const segments: BarSegment[] = [
    ...(native
      ? [
          {
            id: "tools",
            kind: "tools" as const,
            placement: "tools" as const,
            tokens: toolsTokens,
            share: shareOf(toolsTokens),
          },
        ]
      : []),
    ...sections.map((s) => ({
      id: s.id,
      kind: "section" as const,
      placement: s.placement,
      tokens: s.tokens,
      share: s.share,
    })),
  ]

  const system = count(built.text)
  const contextMessage = built.contextMessage === undefined ? 0 : count(built.contextMessage)
  const total = system + contextMessage + toolsTokens
  const window = built.model.contextWindow
  const totals: TokenTotals = { system, contextMessage, tools: toolsTokens, total, window, windowShare: total / window }

  const prefix: PrefixItem[] = [
    ...(native ? [{ kind: "tools" as const, id: "tools", tokens: toolsTokens, volatile: false }] : []),
    ...sections
      .filter((s) => s.placement === "system")
      .map((s) => ({ kind: "section" as const, id: s.id, tokens: s.tokens, volatile: s.volatile })),
  ]
  const cache: CacheLayoutReport = {
    hash: built.hash,
    prefix,
    prefixTokens: toolsTokens + system,
    volatile: sections.filter((s) => s.volatile).map((s) => ({ id: s.id, placement: s.placement, tokens: s.tokens })),
  }
  if (built.model.cache) cache.minTokens = built.model.cache.minTokens

  const warnings = volatileWarnings(sections, tools, context)
  const maxShare = input.maxShare ?? DEFAULT_MAX_SHARE
  if (totals.windowShare > maxShare)
    warnings.push(
      diagnostic(
        "warning",
        "prompt-over-share",
        `the prompt takes ${total.toLocaleString("en-US")} tokens, ${pct(totals.windowShare)} of the ${window.toLocaleString("en-US")}-token window (limit ${pct(maxShare)})`,
      ),
    )
  const names = built.tools.map((t) => t.name)
  if (input.previous) {
    const change = compareToolOrder(input.previous.tools, names)
    if (change.kind === "reordered")
      warnings.push(
        diagnostic(
          "warning",
          "tool-order-changed",
          `the tools are the same as in the last run but in another order (position ${change.position + 1} held ${change.before}, now ${change.now}): the cached prefix moves for nothing`,
        ),
      )
    else if (change.kind === "changed") {
      const parts = [...change.added.map((t) => `+${t}`), ...change.removed.map((t) => `-${t}`)]
      warnings.push(diagnostic("info", "tools-changed", `the tools changed since the last run: ${parts.join(" ")}`))
    }
  }
  if (cache.minTokens !== undefined && cache.prefixTokens < cache.minTokens)
    warnings.push(
      diagnostic(
        "info",
        "prefix-below-cache-minimum",
        `the cached prefix has ${cache.prefixTokens} tokens, below the ${cache.minTokens} the provider needs to cache anything`,
      ),
    )

  const view = windowView({
    built,
    counter,
    system,
    contextMessage,
    toolsTokens,
    sections,
    tools,
    ...(input.history ? { history: input.history } : {}),
  })
  if (view.over > 0)
    warnings.push(
      diagnostic(
        "warning",
        "window-over-budget",
        `the prompt${view.history ? " and the conversation" : ""} take ${num(view.used)} tokens, ${num(view.over)} more than the ${num(view.window - view.reserve)} the budget allows (the window less the ${num(view.reserve)}-token reserve)`,
      ),
    )

  const report: InspectReport = {
    version: 1,
    model: {
      id: built.model.id,
      provider: built.model.provider,
      family: built.model.family,
      contextWindow: window,
      wireFormat: built.wireFormat,
    },
    variant: built.variant,
    toolCalling: built.toolCalling,
    placement: context.placement,
    counting: counting(counter, family),
    totals,
    segments,
    sections,
    tools,
    toolsPreamble: native ? overhead.toolsPreamble : 0,
    instructions: instructionsReport(input, family),
    skills: skillReports(context, input.gather?.skills, sections, count),
    mcpServers: mcpServerReports(context, input.gather?.mcpServers, tools),
    window: view,
    cache,
    warnings,
    diagnostics: [...(input.diagnostics ?? []), ...built.diagnostics],
    lastRun: { tools: names, hash: built.hash },
  }
  const toolSearch = toolSearchReport(built, tools, counter, family)
  if (toolSearch) report.toolSearch = toolSearch
  if (built.contextMessage !== undefined) report.contextMessage = built.contextMessage
  return report
}
