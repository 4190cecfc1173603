/** The OpenAI Responses wire format as data: everything the per-format tables derive from. */
import { type WireFormatDescriptor, without } from "../descriptor.js"
import { OPENAI_CACHE, openAIModelList } from "../openai-chat/descriptor.js"

/** Body fields the counting endpoint does not take (they describe the answer, not the prompt). */
const ANSWER_FIELDS = [
  "stream",
  "stream_options",
  "store",
  "max_output_tokens",
  "temperature",
  "top_p",
  "prompt_cache_key",
  "prompt_cache_retention",
  "include",
  "metadata",
  "service_tier",
  "safety_identifier",
  "generate",
]

/** The OpenAI Responses API (`POST /responses`), over HTTP or its WebSocket. */
export const openAIResponsesDescriptor = {
  format: "openai-responses",
  speaks: "openai-responses",
  defaultFor: { providers: ["openai", "azure"] },
  nativeTools: "openai-responses",
  overhead: { message: 4, request: 3, tool: 10, toolsPreamble: 0, toolBlock: 8, image: 765 },
  cache: OPENAI_CACHE,
  endpoint: { path: "/responses", auth: "bearer", compatible: true },
  counting: {
    request: (url, body) => ({ url: `${url}/input_tokens`, body: without(body, ANSWER_FIELDS) }),
    tokens: (answer) => answer?.input_tokens,
    answer: (tokens) => ({ object: "response.input_tokens", input_tokens: tokens }),
  },
  api: {
    generation: ["/v1/responses", "/responses"],
    counting: ["/v1/responses/input_tokens", "/responses/input_tokens"],
    modelList: { shape: openAIModelList },
  },
  detect: (v) => {
    if (typeof v.type === "string" && v.type.startsWith("response.")) return `a "${v.type}" event`
    return v.object === "response" ? 'object "response"' : undefined
  },
  history: "input",
} as const satisfies WireFormatDescriptor<"openai-responses", "openai-responses">
