/**
 * The inspect report of a request seen only as traffic (a trace line and its body): the whole context window
 * by part (system prompt, tools, instructions, the conversation by kind, reserve, free space), each system
 * section and tool with its tokens, the cache layout with its breakpoints, the verdict, and the conversation's
 * requests as a timeline. Message kinds come from the format's request decoder when it has one, else from
 * the cache layout's units.
 */
import type { CacheLayout } from "../cache/cache-layout.js"
import { cacheLayout } from "../cache/cache-layout.js"
import type { CacheVerdict } from "../cache/explain.js"
import { describeCause } from "../cache/header.js"
import { lineTokens } from "../cache/trace-read.js"
import type { TraceLine } from "../cache/trace-types.js"
import { budgetFor } from "../history/budget.js"
import type { Block, Message } from "../history/message.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import type { CalibrationReport, WindowPart, WindowPartId, WindowView } from "./report-types.js"
import { WINDOW_PART_GROUPS, WINDOW_PART_LABELS } from "./window-view.js"

/** One request of the conversation, for the timeline. */
export interface TimelineEntry {
  n: number
  at: number
  total: number
  read: number
  write: number
  uncached: number
  verdict: CacheVerdict["verdict"]
  cause?: string
}

/** Everything `inspect --trace` shows, as data. */
export interface TraceReport {
  version: 1
  file: string
  request: number
  requests: number
  model: { id: string; contextWindow: number }
  clientApi: string
  upstream: string
  at: number
  durationMs?: number
  window: WindowView
  sections: { name: string; tokens: number }[]
  tools: { name: string; tokens: number }[]
  /** How message kinds were found: the format's request decoder, or the wire units. */
  messagesFrom: "decoder" | "layout"
  cache: {
    order: string
    breakpoints: CacheVerdict["breakpoints"]
    shared: number
    total: number
    verdict: CacheVerdict
    /** The verdict in words. */
    summary: string
  }
  timeline: TimelineEntry[]
  /** The context manager's calibration for the model from the usage reported up to this request. */
  calibration?: CalibrationReport
}

/** What a trace report is made from. */
export interface TraceReportInput {
  file: string
  lines: readonly TraceLine[]
  /** 1-based request to show. */
  request: number
  /** The body that request sent, rebuilt from the trace. */
  body: unknown
  counter: TokenCounter
  models?: readonly ModelInfo[]
}

const ORDER: WindowPartId[] = [
  "system",
  "tools",
  "instructions",
  "user",
  "assistant",
  "tool-calls",
  "tool-results",
  "reasoning",
  "compaction",
  "reserve",
  "free",
]

const CALLS = new Set(["tool_use", "tool_call", "function_call", "functionCall"])
const RESULTS = new Set(["tool_result", "function_call_output", "functionResponse"])
const REASONING = new Set(["thinking", "redacted_thinking", "reasoning", "thought"])
const INSTRUCTIONS = /instructions/i

/** The window part a wire unit or decoded block belongs to. */
function partOf(kind: string, role: string | undefined, text: string): WindowPartId {
  if (CALLS.has(kind)) return "tool-calls"
  if (RESULTS.has(kind) || role === "tool") return "tool-results"
  if (REASONING.has(kind)) return "reasoning"
  if (kind === "compaction") return "compaction"
  if (role === "user" && /^<(project_)?instructions>/.test(text.trimStart())) return "instructions"
  return role === "user" ? "user" : "assistant"
}

/** Tokens of the conversation by kind, from the decoder when the format has one. */
function messageParts(
  layout: CacheLayout,
  body: unknown,
  counter: TokenCounter,
): { sizes: Map<WindowPartId, number>; from: "decoder" | "layout" } {
  const sizes = new Map<WindowPartId, number>()
  const add = (id: WindowPartId, n: number) => sizes.set(id, (sizes.get(id) ?? 0) + n)
  const decode = formatModule(layout.format).decodeRequest
  // A body the decoder refuses is still shown, from its units.
  const decoded = decode ? tryDecode(() => decode(body)) : undefined
  if (decoded) {
    const overhead = formatModule(layout.format).overhead
    const family = layout.model.tokenizer
    for (const m of decoded.messages as Message[])
      for (const block of m.content as Block[])
        add(
          partOf(block.type, m.role, block.type === "text" ? block.text : ""),
          counter.countBlock(block, family, overhead),
        )
    return { sizes, from: "decoder" }
  }
  for (const s of layout.segments)
    if (s.part === "messages") add(partOf(s.kind, s.role === "model" ? "assistant" : s.role, s.text), s.tokens)
  return { sizes, from: "layout" }
}

function tryDecode<T>(run: () => T): T | undefined {
  try {
    return run()
  } catch {
    return undefined
  }
}

/** The inspect report of request `request` of a trace. */
export function traceReport(input: TraceReportInput): TraceReport {
  const line = input.lines.find((l) => l.n === input.request) ?? input.lines.at(-1)!
  const model = resolveModel(line.model, { models: input.models ?? [] }).model
  const layout = cacheLayout(line.upstream.format, input.body, model, input.counter)
  const sections: TraceReport["sections"] = []
  const tools: TraceReport["tools"] = []
  let system = 0
  let instructions = 0
  // The format's fixed tool-use preamble is counted with the first tool; shown on a row of its own.
  const preamble = layout.segments.some((s) => s.part === "tools")
    ? formatModule(layout.format).overhead.toolsPreamble
    : 0
  if (preamble > 0) tools.push({ name: "(tool-use preamble)", tokens: preamble })
  for (const s of layout.segments) {
    if (s.part === "tools")
      tools.push({ name: s.tool!, tokens: s.tokens - (tools.length === 1 && preamble > 0 ? preamble : 0) })
    if (s.part !== "system") continue
    sections.push({ name: s.section!, tokens: s.tokens })
    if (INSTRUCTIONS.test(s.section!)) instructions += s.tokens
    else system += s.tokens
  }
  const { sizes: messages, from } = messageParts(layout, input.body, input.counter)
  const sizes = new Map<WindowPartId, number>([
    ["system", system],
    ["tools", tools.reduce((n, t) => n + t.tokens, 0)],
  ])
  for (const [id, n] of messages) sizes.set(id, (sizes.get(id) ?? 0) + n)
  sizes.set("instructions", (sizes.get("instructions") ?? 0) + instructions)
  const window = model.contextWindow
  const used = [...sizes.values()].reduce((a, b) => a + b, 0)
  const budget = budgetFor(model)
  const reserve = window - budget.effective
  sizes.set("reserve", reserve)
  sizes.set("free", Math.max(0, window - reserve - used))
  const whole = Math.max(window, used + reserve)
  const parts: WindowPart[] = ORDER.filter((id) => (sizes.get(id) ?? 0) > 0 || id === "free").map((id) => ({
    id,
    label: WINDOW_PART_LABELS[id],
    group: WINDOW_PART_GROUPS[id],
    tokens: sizes.get(id) ?? 0,
    share: (sizes.get(id) ?? 0) / whole,
  }))
  const verdict = line.verdict
  return {
    version: 1,
    file: input.file,
    request: line.n,
    requests: input.lines.length,
    model: { id: model.id, contextWindow: window },
    clientApi: line.clientApi,
    upstream: line.upstream.provider ?? line.upstream.format,
    at: line.at,
    ...(line.durationMs !== undefined ? { durationMs: line.durationMs } : {}),
    window: { window, used, reserve, free: sizes.get("free")!, over: Math.max(0, used - budget.effective), parts },
    sections,
    tools,
    messagesFrom: from,
    cache: {
      order: layout.scheme.describe,
      breakpoints: verdict.breakpoints,
      shared: verdict.tokens.shared,
      total: layout.total,
      verdict,
      summary: verdictSummary(verdict),
    },
    timeline: input.lines.map((l) => {
      const t = lineTokens(l)
      return {
        n: l.n,
        at: l.at,
        total: t.total,
        read: t.read,
        write: t.write,
        uncached: Math.max(0, t.total - t.read - t.write),
        verdict: l.verdict.verdict,
        ...(l.verdict.cause ? { cause: describeCause(l.verdict.cause) } : {}),
      }
    }),
  }
}

function verdictSummary(verdict: CacheVerdict): string {
  const share = `${(verdict.cachedShare * 100).toFixed(0)}% of the prompt read from the cache`
  if (verdict.verdict === "first") return `first request of the conversation: nothing to read yet (${share})`
  if (verdict.verdict === "hit") return `hit: ${share}`
  const cost = verdict.addedCost > 0 ? `, $${verdict.addedCost.toFixed(4)} more than a hit` : ""
  return `miss: ${describeCause(verdict.cause!)}; ${verdict.missedTokens.toLocaleString("en-US")} tokens not read${cost}`
}
