/** The Anthropic Messages wire format as data: everything the per-format tables derive from. */
import { type WireFormatDescriptor, without } from "../descriptor.js"

const MINUTE = 60_000

/** Anthropic's own stream events. */
const EVENTS = new Set([
  "message_start",
  "message_delta",
  "message_stop",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "ping",
])

/** Body fields the counting endpoint does not take (they describe the answer, not the prompt). */
const ANSWER_FIELDS = [
  "stream",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "metadata",
  "service_tier",
]

/** The Anthropic Messages API (`POST /v1/messages`). */
export const anthropicDescriptor = {
  format: "anthropic",
  speaks: "anthropic",
  defaultFor: { providers: ["anthropic"], families: ["claude"] },
  nativeTools: "anthropic",
  serverToolSearch: true,
  // 346 tokens of tool-use system prompt when tools are present (Anthropic's docs); images about 1,600 tokens
  // (a 1.15-megapixel image is (w·h)/750 ≈ 1,568); the rest are measured estimates.
  overhead: { message: 4, request: 4, tool: 12, toolsPreamble: 346, toolBlock: 8, image: 1600 },
  cache: {
    order: ["tools", "system", "messages"],
    mode: "breakpoints",
    unit: 1,
    lookback: 20,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "tools → system → messages, cached up to each cache_control breakpoint",
  },
  endpoint: { path: "/v1/messages", auth: "x-api-key", headers: { "anthropic-version": "2023-06-01" } },
  counting: {
    request: (url, body) => ({ url: `${url}/count_tokens`, body: without(body, ANSWER_FIELDS) }),
    tokens: (answer) => answer?.input_tokens,
    answer: (tokens) => ({ input_tokens: tokens }),
  },
  api: {
    generation: ["/v1/messages"],
    counting: ["/v1/messages/count_tokens"],
    marks: { header: "anthropic-version" },
    modelList: {
      shape: (ids) => ({
        data: ids.map((id) => ({ type: "model", id, display_name: id, created_at: "1970-01-01T00:00:00Z" })),
        has_more: false,
        first_id: ids[0] ?? null,
        last_id: ids.at(-1) ?? null,
      }),
    },
  },
  detect: (v) => {
    const type = typeof v.type === "string" ? v.type : undefined
    if (type && EVENTS.has(type)) return `a "${type}" event`
    if (type === "message" && Array.isArray(v.content) && v.role === "assistant") return 'a body of type "message"'
    if (type === "error" && typeof v.error === "object") return 'an "error" event'
    return undefined
  },
  history: "messages",
} as const satisfies WireFormatDescriptor<"anthropic", "anthropic">
