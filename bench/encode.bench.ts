// bench/encode: a history of about 200k tokens encoded for each wire format and serialized, against the floor:
// JSON.stringify of the same body alone (what any encoder must pay at least to put the body on the wire).
import type { Message } from "../src/history/message.js"
import type { BuiltInWireFormat, ModelInfo } from "../src/models/types.js"
import { WIRE_FORMATS } from "../src/models/types.js"
import { encodeRequest } from "../src/providers/encode.js"
import type { EnabledTool } from "../src/tools/spec.js"
import { type Benchmark, type Metric, median, sample } from "./harness.js"

const TARGET_CHARS = 800_000 // about 200k tokens at 4 characters a token

/** Deterministic pseudo-random numbers (no Math.random: the history is the same on every run). */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
}

function sourceLines(rand: () => number, n: number): string {
  const words = ["const", "value", "return", "await", "items", "config", "result", "export", "function", "if", "index"]
  const lines: string[] = []
  for (let i = 0; i < n; i++) {
    const len = 3 + Math.floor(rand() * 9)
    const line = Array.from({ length: len }, () => words[Math.floor(rand() * words.length)]).join(" ")
    lines.push(`${"  ".repeat(Math.floor(rand() * 3))}${line}`)
  }
  return lines.join("\n")
}

/** A long agent session: reads, edits, commands, thinking with signatures, parallel calls. */
export function longHistory(model: string): Message[] {
  const rand = lcg(42)
  const messages: Message[] = [
    { id: "u0", role: "user", ts: 0, content: [{ type: "text", text: "Refactor the configuration loader." }] },
  ]
  let chars = 0
  for (let turn = 1; chars < TARGET_CHARS; turn++) {
    const calls = 1 + Math.floor(rand() * 3)
    const content: Message["content"] = [
      { type: "thinking", text: sourceLines(rand, 3), signature: `sig-${turn}`.repeat(20), model },
      { type: "text", text: `Step ${turn}: reading and editing.` },
    ]
    for (let c = 0; c < calls; c++)
      content.push({
        type: "tool_use",
        id: `toolu_${turn}_${c}`,
        name: "read_file",
        input: { path: `src/mod${turn}_${c}.ts` },
      })
    messages.push({ id: `a${turn}`, role: "assistant", ts: turn * 2, content })
    const results: Message["content"] = []
    for (let c = 0; c < calls; c++) {
      const text = sourceLines(rand, 20 + Math.floor(rand() * 60))
      chars += text.length
      results.push({ type: "tool_result", toolUseId: `toolu_${turn}_${c}`, content: text })
    }
    messages.push({ id: `r${turn}`, role: "user", ts: turn * 2 + 1, content: results })
  }
  return messages
}

const tools: EnabledTool[] = ["read_file", "write_to_file", "execute_command", "search_files"].map((name) => ({
  id: name,
  kind: "read",
  name,
  description: `The ${name} tool.`,
  snippet: name,
  guidelines: [],
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "A path." }, text: { type: "string" } },
    required: ["path"],
  },
  examples: {},
}))

function modelFor(format: BuiltInWireFormat): ModelInfo {
  const ids: Record<BuiltInWireFormat, string> = {
    anthropic: "claude-sonnet-4-5",
    "openai-chat": "gpt-4.1",
    "openai-responses": "gpt-5",
    gemini: "gemini-3-pro-preview",
    deepseek: "deepseek-v4-pro",
  }
  return {
    id: ids[format],
    provider: format === "openai-chat" || format === "openai-responses" ? "openai" : format,
    family: format,
    contextWindow: 1_000_000,
    maxOutput: 32_000,
    tokenizer: "estimate",
    capabilities: { nativeTools: true, images: true, thinking: true },
    cache: { minTokens: 1024, maxBreakpoints: 4, ttls: ["5m", "1h"] },
    source: "bench",
  }
}

const bench: Benchmark = {
  name: "encode",
  async run(): Promise<Metric[]> {
    const metrics: Metric[] = []
    for (const format of WIRE_FORMATS) {
      const model = modelFor(format)
      const messages = longHistory(model.id)
      const input = { prompt: { text: "You are a coding agent.", tools }, messages, model }
      const body = encodeRequest(format, input).body
      const bytes = JSON.stringify(body).length
      // Alternate the two measurements so both see the same machine load.
      const oursRuns: number[] = []
      const floorRuns: number[] = []
      await sample(() => JSON.stringify(encodeRequest(format, input).body), 3, 0)
      for (let round = 0; round < 40; round++) {
        oursRuns.push(...(await sample(() => JSON.stringify(encodeRequest(format, input).body), 1, 0)))
        floorRuns.push(...(await sample(() => JSON.stringify(body), 1, 0)))
      }
      const ours = median(oursRuns) / 1000
      const floor = median(floorRuns) / 1000
      metrics.push({
        name: `${format}: encode + serialize ${messages.length} messages (${(bytes / 1e6).toFixed(1)} MB)`,
        unit: "ms",
        ours,
        peer: { name: "JSON.stringify alone", value: floor },
        better: "lower",
      })
    }
    return metrics
  },
}

export default bench
