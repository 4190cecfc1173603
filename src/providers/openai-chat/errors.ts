/**
 * Errors in OpenAI's shape (`{error: {message, type, param, code}}`), as an HTTP answer and inside a stream.
 * DeepSeek uses the same body with its own status for an exhausted balance (402).
 */
import type { ErrorInput, ErrorResponse } from "../types.js"

/** Which server's error answers to write. */
export type ChatErrorFlavour = "openai-chat" | "deepseek"

interface Shape {
  status: number
  type: string
  code: string | null
}

/** Each error kind as OpenAI answers it: status, `type` and `code`. */
const SHAPES: Record<ErrorInput["kind"], Shape> = {
  "invalid-request": { status: 400, type: "invalid_request_error", code: null },
  "context-overflow": { status: 400, type: "invalid_request_error", code: "context_length_exceeded" },
  auth: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  "not-found": { status: 404, type: "invalid_request_error", code: "model_not_found" },
  "rate-limit": { status: 429, type: "requests", code: "rate_limit_exceeded" },
  quota: { status: 429, type: "insufficient_quota", code: "insufficient_quota" },
  server: { status: 500, type: "server_error", code: null },
  network: { status: 502, type: "server_error", code: null },
  overloaded: { status: 503, type: "server_error", code: "overloaded" },
}

/** DeepSeek's own statuses where they differ from OpenAI's. */
const DEEPSEEK_STATUS: Partial<Record<ErrorInput["kind"], number>> = { quota: 402 }

/** Token figures an overflow message from any provider names: the window and what the request needed. */
const OVERFLOW_FIGURES: readonly { pattern: RegExp; limit: number; used: number }[] = [
  { pattern: /(\d+) tokens > (\d+) maximum/i, used: 1, limit: 2 },
  { pattern: /maximum context length is (\d+) tokens[^\d]+?(\d+) tokens/i, limit: 1, used: 2 },
  { pattern: /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i, used: 1, limit: 2 },
  { pattern: /total length (\d+)\) is too long to fit into the model \(context length (\d+)/i, used: 1, limit: 2 },
]

/**
 * A context overflow in the words OpenAI's clients look for: OpenAI's own message with the window and the
 * request's size when the upstream's message names them, else OpenAI's message for an input over the window.
 * DeepSeek's form says "you requested", as DeepSeek does.
 */
export function chatOverflowMessage(upstream: string, flavour: ChatErrorFlavour = "openai-chat"): string {
  for (const { pattern, limit, used } of OVERFLOW_FIGURES) {
    const m = pattern.exec(upstream)
    if (!m) continue
    const [max, size] = [m[limit]!, m[used]!]
    return flavour === "deepseek"
      ? `This model's maximum context length is ${max} tokens. However, you requested ${size} tokens. Please reduce the length of the messages or completion.`
      : `This model's maximum context length is ${max} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`
  }
  return "Your input exceeds the context window of this model. Please adjust your input and try again."
}

/** The `{error}` body for an error kind and message (also the payload of an error inside a stream). */
export function chatErrorPayload(
  kind: string | undefined,
  message: string,
  flavour: ChatErrorFlavour = "openai-chat",
  param: string | null = null,
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  const known = kind !== undefined && Object.hasOwn(SHAPES, kind) ? (kind as ErrorInput["kind"]) : "server"
  const shape = SHAPES[known]
  const text = known === "context-overflow" ? chatOverflowMessage(message, flavour) : message
  return {
    error: {
      message: text,
      type: shape.type,
      param: known === "context-overflow" ? "messages" : param,
      code: shape.code,
    },
  }
}

/** An error answer in OpenAI's (or DeepSeek's) shape and status; `retry-after` in whole seconds when a wait is known. */
export function encodeChatError(input: ErrorInput, flavour: ChatErrorFlavour = "openai-chat"): ErrorResponse {
  const status = (flavour === "deepseek" ? DEEPSEEK_STATUS[input.kind] : undefined) ?? SHAPES[input.kind].status
  const headers: Record<string, string> = {}
  if (input.retryAfterMs !== undefined)
    headers["retry-after"] = String(Math.max(0, Math.ceil(input.retryAfterMs / 1000)))
  return { status, headers, body: chatErrorPayload(input.kind, input.message, flavour, input.param ?? null) }
}
