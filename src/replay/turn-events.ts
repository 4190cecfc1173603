/**
 * A resolved script turn as normalized stream events: what any format's stream encoder writes as the
 * replay server's answer. Text, thinking and call arguments arrive in deltas of about `chunkSize` characters.
 */
import type { StreamEvent } from "../providers/stream.js"
import { splitText } from "./chunk.js"
import type { ResolvedTurn } from "./resolve.js"

/** What shapes the events of one turn besides the turn itself. */
export interface TurnEventOptions {
  /** The response id the events start with. */
  id: string
  /** The model name the client sees. */
  model: string
  /** Approximate characters per delta. */
  chunkSize: number
  /** The request asked to see reasoning (thinking events are left out otherwise). */
  thinking: boolean
  /** The id of the reasoning item (OpenAI Responses `rs_…`), when the format has one. */
  reasoningId?: string
  /** The wire format answering, for a compaction item (only formats with provider-side compaction get one). */
  format?: string
}

/** The stream events of a resolved turn: start, thinking, text, tool calls, usage, stop. */
export function turnEvents(turn: ResolvedTurn, options: TurnEventOptions): StreamEvent[] {
  const out: StreamEvent[] = [{ type: "start", id: options.id, model: options.model }]
  let index = 0
  if (turn.compaction && options.format) {
    const { payload, summary } = turn.compaction
    const id = options.format === "openai-responses" ? { id: `cmp_replay_${turn.index}` } : {}
    out.push({ type: "compaction", format: options.format, payload, ...(summary ? { summary } : {}), ...id })
    index++
  }
  if (turn.thinking !== undefined && options.thinking) {
    const pieces = splitText(turn.thinking, options.chunkSize)
    const id = options.reasoningId === undefined ? {} : { id: options.reasoningId }
    pieces.forEach((delta, i) => {
      const last = i === pieces.length - 1
      out.push({ type: "thinking", delta, index, ...id, ...(last ? { signature: turn.signature } : {}) })
    })
    if (pieces.length === 0) out.push({ type: "thinking", delta: "", index, ...id, signature: turn.signature })
    index++
  }
  if (turn.text !== "") {
    for (const delta of splitText(turn.text, options.chunkSize)) out.push({ type: "text", delta, index })
    index++
  }
  for (const call of turn.calls) {
    out.push({ type: "tool_call_start", id: call.id, name: call.name })
    for (const argsDelta of splitText(call.arguments, options.chunkSize)) {
      out.push({ type: "tool_call_delta", id: call.id, argsDelta })
    }
    out.push({ type: "tool_call_end", id: call.id, input: call.input })
  }
  const { input, output, cacheRead, cacheWrite, reasoning } = turn.usage
  out.push({ type: "usage", input, output, cacheRead, cacheWrite, ...(reasoning > 0 ? { reasoning } : {}) })
  if (turn.contextEdits?.length) out.push({ type: "context_edits", edits: turn.contextEdits })
  out.push({ type: "stop", reason: turn.stop })
  return out
}
