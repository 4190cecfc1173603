/**
 * The normalized stream: every wire format's decoder emits these events, so the agent loop does
 * not care which provider (or which tool-calling dialect) produced an answer.
 */

/** Why the model stopped. */
export type StopReason = "end" | "tool_use" | "length" | "refusal" | "error"

/** Token usage as reported by the provider. `input` excludes cache reads and writes. */
export interface Usage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** Reasoning tokens, already included in `output`. */
  reasoning?: number
}

export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call_start"; id: string; name: string }
  | { type: "tool_call_delta"; id: string; argsDelta: string }
  | { type: "tool_call_end"; id: string; input: unknown; signature?: string }
  | ({ type: "usage" } & Usage)
  | { type: "stop"; reason: StopReason }
  | { type: "error"; message: string; kind?: string; raw?: string }
