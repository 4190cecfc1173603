import type { GatherEntry } from "../context/report.js"
import type { Diagnostic } from "../diagnostics.js"
import type { TokenizerFamily, WireFormat } from "../models/types.js"
import type { EnabledTool, ToolKind } from "../tools/spec.js"
import type { LastRun } from "./last-run.js"

// The data of an inspect report: what `promptline inspect --json` prints and the renderers read.

/** How tokens were counted for the model. */
export interface CountingInfo {
  tokenizer: TokenizerFamily
  /** True for o200k and cl100k (counted exactly); false for calibrated estimates. */
  exact: boolean
  /** Tokens of the family per o200k token (1 when exact). */
  factor: number
  description: string
}

/** How far our estimate for a model is off: the context manager's moving ratio of reported ÷ counted tokens. */
export interface CalibrationReport {
  model: string
  /** Reported (or exactly counted) prompt tokens ÷ our count, as a moving ratio over the samples. */
  ratio: number
  samples: number
  /** Where the samples came from: the counting endpoint (`--exact`), a session of `run`, or a trace's usage. */
  source: "endpoint" | "session" | "trace"
  /** The session id or trace file the samples came from. */
  from?: string
}

/** One part of a request counted both by the provider and by us (`inspect --exact`). */
export interface ExactPart {
  id: "system" | "tools" | "messages"
  /** The provider's count: the whole request less the request without this part (messages: the rest). */
  exact: number
  /** Our count of the part, as the context manager counts it. */
  estimated: number
}

/** What `inspect --exact` found: the provider's count beside ours, or why there is none. */
export type ExactCount =
  | {
      status: "counted"
      format: WireFormat
      /** The counting endpoint that answered (its URL; keys travel in headers, never here). */
      endpoint: string
      /** Where the key came from (`ANTHROPIC_API_KEY`, ...). */
      keySource: string
      /** The provider's count of the whole request. */
      exact: number
      /** Our count of the same request. */
      estimated: number
      /** exact ÷ estimated. */
      ratio: number
      /** Per part, when the request has more than one part to tell apart. */
      parts: ExactPart[]
      /** Counting requests made. */
      requests: number
      /** The conversation was empty: one short user message was counted on both sides, as providers need one. */
      probeMessage?: boolean
    }
  | {
      status: "unavailable"
      /** The diagnostic's code: `count-no-key`, `count-unsupported`, `count-failed`. */
      code: string
      reason: string
      /** Our count of the request, which stands in for the provider's. */
      estimated: number
    }

/** One section with its cost. */
export interface SectionReport {
  id: string
  placement: "system" | "context-message"
  /** The section holds per-project or per-day facts. */
  volatile: boolean
  tokens: number
  /** Share of all counted tokens (sections and tool definitions). */
  share: number
  hash: string
  text: string
}

/** One tool with the cost of its definition. */
export interface ToolReport {
  name: string
  id: string
  kind: ToolKind
  /** Tokens of its native definition (with the wire format's per-tool overhead), or of its XML docs. */
  tokens: number
  /** `definition`: sent as a native tool definition; `prompt`: documented in the tool-use section (XML). */
  where: "definition" | "prompt"
  /** The definition as sent (JSON) or the XML docs text. */
  definition: string
  /** The description and parameter schema the definition was made from (the same for every wire format). */
  description: string
  parameters: EnabledTool["parameters"]
  mcp?: { server: string; tool: string }
}

/** A tool tool search left out of the list, with what its definition would cost loaded. */
export interface DeferredToolReport {
  name: string
  id: string
  kind: ToolKind
  /** Tokens of its native definition, or of its XML docs, were it loaded. */
  tokens: number
  mcp?: { server: string; tool: string }
}

/** What tool search left out of the tool list and what that saves on each request. */
export interface ToolSearchReport {
  deferred: DeferredToolReport[]
  /** Tokens the deferred tools would take loaded. */
  deferredTokens: number
  /** Tokens of the search and call tools that stand in for them. */
  searchToolsTokens: number
  /** deferredTokens − searchToolsTokens: saved on every request. */
  savedTokens: number
}

/** One segment of the stacked token bar. */
export interface BarSegment {
  id: string
  kind: "tools" | "section"
  placement: "tools" | "system" | "context-message"
  tokens: number
  /** tokens / the sum of all segments: the segments' shares add up to 1. */
  share: number
}

/** An instruction file with what it costs when its text is in the context. */
export type InstructionLine = GatherEntry & { tokens?: number }

/** The instruction files: from gather's report, or only those in a context file. */
export interface InstructionsReport {
  source: "gather" | "context"
  note?: string
  entries: InstructionLine[]
}

/** One part of the cached prefix, in the order the provider caches it. */
export interface PrefixItem {
  kind: "tools" | "section"
  id: string
  tokens: number
  volatile: boolean
}

/** The cache layout: what sits in the prefix and what is volatile. */
export interface CacheLayoutReport {
  /** Hash of the prefix (tools, then the system prompt); equal hash ⇔ the cache can hit. */
  hash: string
  /** Tools, then system sections. */
  prefix: PrefixItem[]
  prefixTokens: number
  /** Below this many tokens the provider caches nothing (from the model catalog). */
  minTokens?: number
  /** Volatile sections and where they went. */
  volatile: { id: string; placement: "system" | "context-message"; tokens: number }[]
}

/** The prompt's totals in tokens. */
export interface TokenTotals {
  system: number
  contextMessage: number
  /** Native tool definitions (0 in the XML dialect: the docs are in the system prompt). */
  tools: number
  total: number
  window: number
  /** total / window. */
  windowShare: number
}

/** One skill: its name, where it lives, what gather did with it, and what its entry in the prompt costs. */
export interface SkillReport {
  name?: string
  path: string
  scope: "user" | "project"
  status: GatherEntry["status"]
  /** Why the status, in words. */
  why?: string
  /** Tokens of its line in the skills section (only for a skill the prompt lists). */
  tokens?: number
}

/** One MCP server: where its config came from, what gather did with it, and what its tools cost. */
export interface McpServerReport {
  name: string
  /** The config file that declared it, when gather knows it. */
  source?: string
  /** The config format (`claude`, `cursor`, ...). */
  format?: string
  /** Whose config declared it; unknown for a server read from a context file. */
  scope?: "user" | "project"
  status: GatherEntry["status"]
  why?: string
  /** The server's tools that are enabled in this build. */
  tools: number
  /** Tokens of those tools (definitions, or XML docs): the server's subtotal. */
  tokens: number
}

/** A part of the context window view. */
export type WindowPartId =
  | "system"
  | "tools"
  | "mcp-tools"
  | "instructions"
  | "user"
  | "assistant"
  | "tool-calls"
  | "tool-results"
  | "reasoning"
  | "compaction"
  | "framing"
  | "reserve"
  | "free"

/** One segment of the window bar. */
export interface WindowPart {
  id: WindowPartId
  label: string
  group: "prompt" | "messages" | "reserve" | "free"
  tokens: number
  /** tokens / the window (or / used + reserve when that is more): the parts' shares add up to 1. */
  share: number
}

/** The whole context window: prompt, conversation by kind, the reserve for the answer, free space. */
export interface WindowView {
  window: number
  /** Prompt and conversation. */
  used: number
  /** Held back for the answer and counting error (the context manager's budget). */
  reserve: number
  free: number
  /** Tokens above the budget (window − reserve); 0 when it fits. */
  over: number
  parts: WindowPart[]
  /** The conversation given with `--history`: how many messages, how many tokens. */
  history?: { messages: number; tokens: number }
}

/** Everything `promptline inspect` shows, as data (`--json` prints it). */
export interface InspectReport {
  version: 1
  model: { id: string; provider: string; family: string; contextWindow: number; wireFormat: WireFormat }
  variant: string
  toolCalling: "native" | "xml"
  placement: "system" | "context-message"
  counting: CountingInfo
  totals: TokenTotals
  segments: BarSegment[]
  sections: SectionReport[]
  tools: ToolReport[]
  /** Present when tool search left tools out of the list. */
  toolSearch?: ToolSearchReport
  /** Tokens the provider adds once when any tool is defined (Anthropic's tool-use preamble). */
  toolsPreamble: number
  contextMessage?: string
  instructions: InstructionsReport
  skills: SkillReport[]
  mcpServers: McpServerReport[]
  /** The whole context window, with the conversation when one was given. */
  window: WindowView
  cache: CacheLayoutReport
  warnings: Diagnostic[]
  /** Diagnostics of the gather and the build. */
  diagnostics: Diagnostic[]
  /** What to remember for the next run's tool-order check. */
  lastRun: LastRun
  /** `--exact`: the provider's count of the request beside ours. */
  exact?: ExactCount
  /** The calibration of our estimate for this model, from `--exact` and `--session`. */
  calibrations?: CalibrationReport[]
}
