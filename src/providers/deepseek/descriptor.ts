/** The DeepSeek wire format (OpenAI Chat with DeepSeek's additions) as data: what the per-format tables derive from. */
import type { WireFormatDescriptor } from "../descriptor.js"

const MINUTE = 60_000

/** DeepSeek's own fields and model names tell its Chat payloads apart. */
function mark(v: Record<string, unknown>): string | undefined {
  if (v.object !== "chat.completion.chunk" && v.object !== "chat.completion") return undefined
  if (typeof v.model === "string" && v.model.startsWith("deepseek")) return `model "${v.model}"`
  const usage = v.usage as Record<string, unknown> | undefined
  if (usage && "prompt_cache_hit_tokens" in usage) return 'a "prompt_cache_hit_tokens" usage field'
  // `reasoning_content` is no mark: xAI and other Chat servers send it too.
  return undefined
}

/** DeepSeek's Chat Completions API (`POST /chat/completions`); its clients call the OpenAI Chat paths. */
export const deepseekDescriptor = {
  format: "deepseek",
  speaks: "openai-chat",
  defaultFor: { providers: ["deepseek"] },
  nativeTools: "openai-chat",
  overhead: { message: 4, request: 3, tool: 10, toolsPreamble: 0, toolBlock: 8, image: 765 },
  cache: {
    order: ["tools", "system", "messages"],
    mode: "automatic",
    unit: 64,
    lookback: 0,
    defaultLifetimeMs: 60 * MINUTE,
    defaultMinimum: 64,
    describe: "automatic disk caching of the input as sent, in 64-token units",
  },
  endpoint: { path: "/chat/completions", auth: "bearer", compatible: true },
  detect: mark,
  history: "messages",
} as const satisfies WireFormatDescriptor<"deepseek", "openai-chat">
