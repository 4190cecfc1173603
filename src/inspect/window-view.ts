import { budgetFor } from "../history/budget.js"
import type { Block, Message } from "../history/message.js"
import { overheadOf, type TokenCounter } from "../history/tokens.js"
import type { BuiltPrompt } from "../prompt/builder.js"
import type { SectionReport, ToolReport, WindowPart, WindowPartId, WindowView } from "./report-types.js"

/** The sections that carry the instruction files (AGENTS.md and friends). */
export const INSTRUCTION_SECTIONS: readonly string[] = ["user-instructions"]

/** The conversation's kinds, in the order the view lists them. */
const MESSAGE_KINDS: readonly WindowPartId[] = [
  "user",
  "assistant",
  "tool-calls",
  "tool-results",
  "reasoning",
  "compaction",
  "framing",
]

/** What a message block counts as in the window view. */
function kindOf(block: Block, role: Message["role"]): WindowPartId {
  switch (block.type) {
    case "tool_use":
    case "tool_search":
      return "tool-calls"
    case "tool_result":
      return "tool-results"
    case "thinking":
    case "redacted_thinking":
      return "reasoning"
    case "compaction":
      return "compaction"
    default:
      return role === "user" ? "user" : "assistant"
  }
}

/** How each part of the context window is named in reports (the inspect report and the trace report). */
export const WINDOW_PART_LABELS: Readonly<Record<WindowPartId, string>> = {
  system: "system prompt",
  tools: "tools",
  "mcp-tools": "MCP tools",
  instructions: "instructions",
  user: "user text",
  assistant: "assistant text",
  "tool-calls": "tool calls",
  "tool-results": "tool results",
  reasoning: "reasoning",
  compaction: "provider compaction",
  framing: "message framing",
  reserve: "output reserve",
  free: "free space",
}

/** The group each part of the context window belongs to. */
export const WINDOW_PART_GROUPS: Readonly<Record<WindowPartId, WindowPart["group"]>> = {
  system: "prompt",
  tools: "prompt",
  "mcp-tools": "prompt",
  instructions: "prompt",
  user: "messages",
  assistant: "messages",
  "tool-calls": "messages",
  "tool-results": "messages",
  reasoning: "messages",
  compaction: "messages",
  framing: "messages",
  reserve: "reserve",
  free: "free",
}

/** Tokens of the history by kind; the kinds add up to what the context manager counts for it. */
function messageTokens(
  messages: readonly Message[],
  built: BuiltPrompt,
  counter: TokenCounter,
): Map<WindowPartId, number> {
  const family = built.model.tokenizer
  const overhead = overheadOf(built.wireFormat)
  const out = new Map<WindowPartId, number>()
  const add = (id: WindowPartId, n: number) => out.set(id, (out.get(id) ?? 0) + n)
  let blocks = 0
  for (const m of messages)
    for (const block of m.content) {
      let n = counter.countBlock(block, family, overhead)
      if (block.type === "tool_result" && Array.isArray(block.content))
        n += block.content.filter((p) => p.type === "image").length * overhead.image
      add(kindOf(block, m.role), n)
      blocks += n
    }
  // Per-message and per-request framing: what countMessages adds around the blocks.
  add("framing", counter.countMessages(messages, family, overhead) - blocks)
  return out
}

/** What the view is made from: the build, its figures, and the conversation when one was given. */
export interface WindowViewInput {
  built: BuiltPrompt
  counter: TokenCounter
  system: number
  contextMessage: number
  /** Native tool definitions with the preamble (0 in the XML dialect). */
  toolsTokens: number
  sections: readonly SectionReport[]
  tools: readonly ToolReport[]
  history?: readonly Message[]
}

/**
 * The whole context window as `/context` shows it: the prompt by part (system, tools, MCP tools, instructions),
 * the conversation by kind, the budget's reserve for the answer, and what is left free.
 */
export function windowView(input: WindowViewInput): WindowView {
  const { built, tools } = input
  const window = built.model.contextWindow
  const native = built.toolCalling === "native" && tools.length > 0
  const mcp = tools.filter((t) => t.mcp).reduce((n, t) => n + t.tokens, 0)
  const docs = native ? 0 : tools.reduce((n, t) => n + t.tokens, 0)
  const builtIn = native ? input.toolsTokens - mcp : docs - mcp
  const instructions = input.sections
    .filter((s) => INSTRUCTION_SECTIONS.includes(s.id))
    .reduce((n, s) => n + s.tokens, 0)
  // In the XML dialect the tool docs sit inside the system prompt: they move from there to the tools.
  const system = Math.max(0, input.system + input.contextMessage - instructions - docs)
  const sizes = new Map<WindowPartId, number>([
    ["system", system],
    ["tools", builtIn],
    ["mcp-tools", mcp],
    ["instructions", instructions],
  ])
  const history = input.history ? messageTokens(input.history, built, input.counter) : new Map<WindowPartId, number>()
  for (const id of MESSAGE_KINDS) if (history.has(id)) sizes.set(id, history.get(id)!)
  const used = [...sizes.values()].reduce((a, b) => a + b, 0)
  const budget = budgetFor(built.model)
  const reserve = window - budget.effective
  const free = Math.max(0, window - reserve - used)
  sizes.set("reserve", reserve)
  sizes.set("free", free)
  const whole = Math.max(window, used + reserve)
  const parts: WindowPart[] = [...sizes]
    .filter(([id, tokens]) => tokens > 0 || id === "free")
    .map(([id, tokens]) => ({
      id,
      label: WINDOW_PART_LABELS[id],
      group: WINDOW_PART_GROUPS[id],
      tokens,
      share: tokens / whole,
    }))
  const view: WindowView = { window, used, reserve, free, over: Math.max(0, used - budget.effective), parts }
  if (input.history) {
    const messages = [...history.values()].reduce((a, b) => a + b, 0)
    view.history = { messages: input.history.length, tokens: messages }
  }
  return view
}
