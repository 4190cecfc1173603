import { PromptlineError } from "../errors.js"
import { isLoopbackUrl } from "../http-url.js"
import { errorPageText, isMarkup } from "./error-page.js"
import type { ProviderErrorKind, StreamErrorEvent } from "./stream.js"

export type { ProviderErrorKind } from "./stream.js"

/** Kinds worth retrying after a wait (the request itself was fine). */
const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(["rate-limit", "server", "network"])

/** A failed provider call, classified. `code` equals `kind`. */
export class ProviderError extends PromptlineError<ProviderErrorKind> {
  readonly kind: ProviderErrorKind
  /** HTTP status, when the failure came with one. */
  readonly status: number | undefined
  /** How long the provider asks us to wait, in milliseconds. */
  readonly retryAfterMs: number | undefined
  /** The response body (or stream payload) as received, for logs. */
  readonly body: string | undefined
  /** True for rate limits, server errors and network failures, unless the failure says it cannot pass. */
  readonly retryable: boolean
  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; body?: string; cause?: unknown; retryable?: boolean } = {},
  ) {
    super(kind, message, { cause: options.cause })
    this.kind = kind
    this.status = options.status
    this.retryAfterMs = options.retryAfterMs
    this.body = options.body
    this.retryable = options.retryable ?? RETRYABLE.has(kind)
  }
}

/** One known context-overflow message: who sends it, a pattern that matches it, and an example. */
export interface OverflowMessage {
  provider: string
  pattern: RegExp
  example: string
}

/**
 * The context-overflow messages of the providers and servers we speak to. Matched against the
 * error message (case-insensitive); the examples double as test cases.
 */
export const OVERFLOW_MESSAGES: readonly OverflowMessage[] = [
  {
    provider: "anthropic",
    pattern: /prompt is too long: \d+ tokens > \d+ maximum/i,
    example: "prompt is too long: 213462 tokens > 200000 maximum",
  },
  {
    provider: "anthropic",
    pattern: /input length and `?max_tokens`? exceed context limit/i,
    example:
      "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
  },
  {
    provider: "openai",
    pattern: /maximum context length is \d+ tokens/i,
    example:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
  },
  {
    provider: "openai",
    pattern: /exceeds the context window of this model/i,
    example: "Your input exceeds the context window of this model. Please adjust your input and try again.",
  },
  {
    provider: "openai",
    pattern: /context_length_exceeded/i,
    example: '{"error":{"code":"context_length_exceeded","message":"too long"}}',
  },
  {
    provider: "gemini",
    pattern: /input token count.*exceeds the maximum number of tokens allowed/i,
    example: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
  },
  {
    provider: "deepseek",
    pattern: /maximum context length is \d+ tokens\. However, you requested \d+ tokens/i,
    example:
      "This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (66027 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
  },
  {
    provider: "openrouter",
    pattern: /endpoint's maximum context length is \d+ tokens/i,
    example:
      'This endpoint\'s maximum context length is 200000 tokens. However, you requested about 231034 tokens (223034 of text input, 8000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
  },
  {
    provider: "ollama",
    pattern: /prompt too long; exceeded (max )?context length/i,
    example: "prompt too long; exceeded max context length by 4021 tokens",
  },
  {
    provider: "llama.cpp",
    pattern: /exceeds the available context size/i,
    example: "the request exceeds the available context size. try increasing the context size or enable context shift",
  },
  {
    provider: "llama.cpp",
    pattern: /exceed_context_size_error|context size has been exceeded/i,
    example: "Context size has been exceeded.",
  },
  {
    provider: "vllm",
    pattern: /is too long to fit into the model|longer than the maximum model length/i,
    example:
      "The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.",
  },
  {
    provider: "vllm",
    pattern: /maximum context length is \d+ tokens and your request has \d+ input tokens/i,
    example:
      "'max_tokens' or 'max_completion_tokens' is too large: 2048. This model's maximum context length is 4096 tokens and your request has 3000 input tokens (2048 > 4096 - 3000).",
  },
  {
    provider: "lmstudio",
    pattern: /tokens when context the overflows|not enough\. Try to load the model with a larger context length/i,
    example:
      "Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
  },
  {
    provider: "lmstudio",
    pattern: /reached context length of \d+ tokens|cannot truncate prompt with n_keep/i,
    example: "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)",
  },
  {
    // A gateway passing on another provider's overflow that named no sizes keeps Anthropic's opening.
    provider: "anthropic",
    pattern: /^prompt is too long: /i,
    example: "prompt is too long: the input exceeds the upstream model's context window",
  },
]

/** The provider whose overflow message `message` is, or undefined when it is not an overflow. */
export function matchOverflow(message: string): string | undefined {
  for (const entry of OVERFLOW_MESSAGES) if (entry.pattern.test(message)) return entry.provider
  return undefined
}

/** True when the message says the request did not fit the model's context window. */
export function isContextOverflow(message: string): boolean {
  return matchOverflow(message) !== undefined
}

/** What `classifyHttpError` reads: a status, the body text, the headers; `now` resolves HTTP-date retry hints. */
export interface HttpFailure {
  status: number
  body?: string
  headers?: Headers | Record<string, string | undefined>
  /** Milliseconds since the epoch; needed only for date-valued retry headers. */
  now?: number
}

/** Classifies an HTTP failure (status + body + headers) into a ProviderError. */
export function classifyHttpError(failure: HttpFailure): ProviderError {
  const body = failure.body ?? ""
  const detail = errorDetail(body)
  const message = `HTTP ${failure.status}${detail.message ? `: ${detail.message}` : ""}`
  const retryAfterMs =
    retryAfterFrom(failure.headers, failure.now) ?? retryDelayInBody(body) ?? retryAfterInText(detail.message)
  const kind = kindOf(failure.status, `${detail.message} ${detail.code}`, body)
  return new ProviderError(kind, message, { status: failure.status, retryAfterMs, body: body || undefined })
}

/** Classifies an error reported inside a stream (an error payload) by its code/type and message. */
export function classifyStreamError(code: string, message: string, status?: number): ProviderErrorKind {
  return kindOf(status ?? 0, `${message} ${code}`, "")
}

/**
 * An error reported inside a stream, as an error event: `<code>: <message>`, its kind from the code
 * and message, and the wait the provider named (Gemini's RetryInfo in `details`, or "try again in 20s"
 * in the message).
 */
export function streamErrorEvent(
  code: string,
  message: string,
  options: { status?: number; details?: unknown } = {},
): StreamErrorEvent {
  const event: StreamErrorEvent = {
    type: "error",
    kind: classifyStreamError(code, message, options.status),
    message: code ? `${code}: ${message}` : message,
  }
  const wait = retryInfoDelay(options.details) ?? retryAfterInText(message)
  if (wait !== undefined) event.retryAfterMs = wait
  return event
}

/** Turns an error stream event back into a ProviderError (for callers that throw). */
export function providerErrorFromEvent(event: StreamErrorEvent): ProviderError {
  const kind = (
    ["context-overflow", "rate-limit", "quota", "auth", "invalid-request", "server", "network"] as const
  ).find((k) => k === event.kind)
  return new ProviderError(kind ?? "server", event.message, { retryAfterMs: event.retryAfterMs, body: event.raw })
}

/** Wraps a failure to reach the provider (DNS, refused, reset, aborted) as a network error. */
export function networkError(cause: unknown, url?: string): ProviderError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  // Nothing listening on this machine's own address will not start listening because we wait: not retried.
  const refused = (cause as NodeJS.ErrnoException | undefined)?.code === "ECONNREFUSED"
  if (refused && url !== undefined && isLoopbackUrl(url))
    return new ProviderError("network", `network failure: nothing listens at ${new URL(url).host} (${reason})`, {
      cause,
      retryable: false,
    })
  return new ProviderError("network", `network failure: ${reason}`, { cause })
}

const QUOTA =
  /insufficient_quota|billing_error|exceeded your current quota|quota exceeded|credit balance is too low|payment required/
const AUTH =
  /authentication_error|permission_error|invalid api key|invalid_api_key|api key not valid|api_key_invalid|unauthenticated|permission_denied/
const RATE = /rate_limit|rate limit|resource_exhausted|too many requests/
const SERVER = /overloaded|server_error|api_error|internal|unavailable|timeout/

function kindOf(status: number, text: string, body: string): ProviderErrorKind {
  const lower = text.toLowerCase()
  if (isContextOverflow(text) || isContextOverflow(body)) return "context-overflow"
  if (status === 402 || QUOTA.test(lower)) return "quota"
  if (status === 401 || status === 403 || AUTH.test(lower)) return "auth"
  if (status === 429) return "rate-limit"
  if (status === 413 || /request_too_large/.test(lower)) return "context-overflow"
  // 408 (timeout) and 409 (a conflict such as a concurrent request) may pass when sent again.
  if (status === 408 || status === 409 || status >= 500) return "server"
  if (status >= 400) return "invalid-request"
  // No HTTP status (an error inside a stream): the code or type decides.
  if (RATE.test(lower)) return "rate-limit"
  if (SERVER.test(lower)) return "server"
  if (/invalid_request|invalid_argument|not_found|invalid_prompt/.test(lower)) return "invalid-request"
  return "server"
}

/** The message and code/type of a provider error body in any of the shapes providers use. */
function errorDetail(body: string): { message: string; code: string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    // A proxy's or load balancer's page instead of the API's error: its words, never its markup or scripts.
    return { message: isMarkup(body) ? errorPageText(body) : body.trim().slice(0, 500), code: "" }
  }
  // Gemini sometimes wraps the error object in an array.
  const root = Array.isArray(parsed) ? parsed[0] : parsed
  if (typeof root !== "object" || root === null) return { message: body.trim().slice(0, 500), code: "" }
  const r = root as Record<string, unknown>
  const error = typeof r.error === "object" && r.error !== null ? (r.error as Record<string, unknown>) : r
  const message = typeof error.message === "string" ? error.message : typeof r.error === "string" ? r.error : ""
  const code = [error.type, error.code, error.status].filter((v) => typeof v === "string").join(" ")
  return { message, code }
}

function header(headers: HttpFailure["headers"], name: string): string | undefined {
  if (!headers) return undefined
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | undefined>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  return key === undefined ? undefined : record[key]
}

/** Reads `retry-after-ms`, `retry-after` (seconds or HTTP date) and OpenAI's `x-ratelimit-reset-*` durations. */
export function retryAfterFrom(headers: HttpFailure["headers"], now?: number): number | undefined {
  const ms = header(headers, "retry-after-ms")
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms))
  const after = header(headers, "retry-after")
  if (after !== undefined) {
    const trimmed = after.trim()
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
    const date = Date.parse(trimmed)
    if (!Number.isNaN(date) && now !== undefined) return Math.max(0, date - now)
  }
  const resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
    .map((name) => header(headers, name))
    .map((value) => (value === undefined ? undefined : parseDuration(value)))
    .filter((v): v is number => v !== undefined)
  return resets.length > 0 ? Math.max(...resets) : undefined
}

/** Parses durations such as `1s`, `6m0s`, `250ms`, `1h2m3.5s` into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text.trim()) return undefined
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]!]!, 0))
}

/** Gemini puts the wait in the body: `error.details[]` holds a `google.rpc.RetryInfo` with `retryDelay: "37s"`. */
function retryDelayInBody(body: string): number | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const root = Array.isArray(parsed) ? parsed[0] : parsed
  const error = typeof root === "object" && root !== null ? (root as Record<string, unknown>).error : undefined
  const details = typeof error === "object" && error !== null ? (error as Record<string, unknown>).details : undefined
  return retryInfoDelay(details)
}

/** The wait of a `google.rpc.RetryInfo` entry in an error's `details` (a protobuf Duration such as `"13s"`, `"0.5s"`). */
export function retryInfoDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined
  for (const entry of details) {
    if (typeof entry !== "object" || entry === null) continue
    const e = entry as Record<string, unknown>
    if (typeof e["@type"] !== "string" || !e["@type"].endsWith("google.rpc.RetryInfo")) continue
    const match = typeof e.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(e.retryDelay.trim()) : null
    if (match) return Math.round(Number(match[1]) * 1000)
  }
  return undefined
}

/** A wait named in an error message: "Please try again in 20ms", "retry in 13.2s", "try again in 6m0s", "in 2 seconds". */
export function retryAfterInText(message: string): number | undefined {
  const compact = /(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)(?![a-z])/i.exec(message)
  if (compact) return parseDuration(compact[1]!.toLowerCase())
  const words = /(?:try again|retry) in (\d+(?:\.\d+)?) ?(milliseconds?|seconds?|minutes?)\b/i.exec(message)
  if (!words) return undefined
  const unit = words[2]!.toLowerCase().startsWith("milli")
    ? 1
    : words[2]!.toLowerCase().startsWith("min")
      ? 60_000
      : 1000
  return Math.round(Number(words[1]) * unit)
}
