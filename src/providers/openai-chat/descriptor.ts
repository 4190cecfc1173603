/** The OpenAI Chat Completions wire format as data: everything the per-format tables derive from. */
import type { WireFormatDescriptor } from "../descriptor.js"

const MINUTE = 60_000

/** OpenAI's prompt cache, the same for Chat Completions and Responses: automatic, by prefix, in 128-token steps. */
export const OPENAI_CACHE = {
  order: ["tools", "system", "messages"],
  mode: "automatic",
  unit: 128,
  lookback: 0,
  defaultLifetimeMs: 5 * MINUTE,
  defaultMinimum: 1024,
  describe: "automatic prefix caching of the input as sent, in 128-token steps from 1,024 tokens",
} as const

/** An OpenAI model list (Chat and Responses clients share it). */
export function openAIModelList(ids: readonly string[]): unknown {
  return { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "promptline" })) }
}

/** The OpenAI Chat Completions API (`POST /chat/completions`), also spoken by every OpenAI-compatible server. */
export const openAIChatDescriptor = {
  format: "openai-chat",
  speaks: "openai-chat",
  // The default of any provider no descriptor names (models/wire.ts).
  defaultFor: { providers: [] },
  nativeTools: "openai-chat",
  // 3 per message and 3 for the reply (OpenAI's cookbook); the rest are measured estimates.
  overhead: { message: 3, request: 3, tool: 10, toolsPreamble: 0, toolBlock: 8, image: 765 },
  cache: OPENAI_CACHE,
  endpoint: { path: "/chat/completions", auth: "bearer", compatible: true },
  api: {
    // DeepSeek and some compatible servers are also called without the /v1 prefix.
    generation: ["/v1/chat/completions", "/chat/completions"],
    marks: { fallback: true },
    modelList: { paths: (path) => path === "/v1/models" || path === "/models", shape: openAIModelList },
  },
  detect: (v) =>
    v.object === "chat.completion.chunk" || v.object === "chat.completion" ? `object "${v.object}"` : undefined,
  history: "messages",
} as const satisfies WireFormatDescriptor<"openai-chat", "openai-chat">
