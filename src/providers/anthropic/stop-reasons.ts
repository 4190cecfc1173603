/**
 * Anthropic's stop reasons and ours, both ways, in one table: the decoder reads the wire's reason through
 * `stopFromAnthropic`, the stream encoder writes ours through `stopToAnthropic`.
 */
import type { StopReason } from "../stream.js"

/**
 * Anthropic's stop reasons → ours. `pause_turn` (a server tool paused the turn) ends the turn;
 * `compaction` (pause_after_compaction) leaves the compaction block and nothing after it.
 */
const FROM_WIRE: Readonly<Record<string, StopReason>> = {
  end_turn: "end",
  stop_sequence: "end",
  pause_turn: "end",
  compaction: "end",
  tool_use: "tool_use",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "refusal",
}

/** Our stop reasons as Anthropic's canonical one (an `error` stop has none: the stream ends with an error event). */
const TO_WIRE: Readonly<Record<Exclude<StopReason, "error">, string>> = {
  end: "end_turn",
  tool_use: "tool_use",
  length: "max_tokens",
  refusal: "refusal",
}

/** Our stop reason for an Anthropic one; a reason the table does not know ends the turn. */
export function stopFromAnthropic(raw: string): StopReason {
  return Object.hasOwn(FROM_WIRE, raw) ? (FROM_WIRE[raw] as StopReason) : "end"
}

/** Anthropic's stop reason for ours: the client's own `raw` reason when it means the same, else the canonical one. */
export function stopToAnthropic(reason: Exclude<StopReason, "error">, raw?: string): string {
  if (raw !== undefined && Object.hasOwn(FROM_WIRE, raw) && FROM_WIRE[raw] === reason) return raw
  return TO_WIRE[reason]
}
