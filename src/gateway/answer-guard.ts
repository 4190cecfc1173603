/**
 * What a translated answer may show its client when the upstream restarts its answer: a spliced stream, where a
 * second `start` arrives while the first generation is still open (an upstream proxy retried after a break and
 * joined the new answer to the old one). The official SDKs refuse such a stream (the Anthropic SDK raises
 * "Unexpected event order", the AI SDK an invalid-response error); promptline's accumulator keeps the generation
 * the upstream finished. A whole (non-streamed) answer is written once the upstream ended, so it gets exactly that
 * generation. A streamed answer cannot take back what it already wrote: a restart before any content is followed
 * seamlessly, a restart after content ends the client's answer with an error, never with the two generations run
 * together.
 */
import type { StreamErrorEvent, StreamEvent } from "../providers/stream.js"

/** An event that puts something of the answer in front of the client. */
function isContent(event: StreamEvent): boolean {
  switch (event.type) {
    case "text":
      return event.delta !== ""
    case "thinking":
      return event.delta !== "" || event.signature !== undefined
    case "redacted_thinking":
    case "compaction":
    case "tool_search":
    case "tool_call_start":
    case "tool_call_delta":
    case "tool_call_end":
      return true
    default:
      return false
  }
}

/** The error a streamed answer ends with when the upstream restarted after part of it was written. */
export const RESTART_ERROR: StreamErrorEvent = {
  type: "error",
  kind: "server",
  message:
    "the upstream restarted its answer after part of it was sent (a spliced stream); the part sent cannot be taken back",
}

/** The events of the generation the upstream finished: a generation it abandoned by restarting is left out. */
export function lastGeneration(events: readonly StreamEvent[]): StreamEvent[] {
  let from = 0
  let open = false
  let content = false
  events.forEach((event, i) => {
    if (event.type === "start") {
      if (open && content) from = i
      open = true
      content = false
    } else if (event.type === "stop") open = false
    else if (isContent(event)) content = true
  })
  return from === 0 ? [...events] : events.slice(from)
}

/**
 * Guards a streamed answer, batch by batch: a restart after content was passed on becomes RESTART_ERROR, and
 * nothing of the answer passes after it.
 */
export class RestartGuard {
  #open = false
  #shown = false
  #over = false

  /** The events of `batch` the client may be shown. */
  push(batch: readonly StreamEvent[]): StreamEvent[] {
    const out: StreamEvent[] = []
    for (const event of batch) {
      if (this.#over) break
      if (event.type === "start") {
        if (this.#open && this.#shown) {
          out.push(RESTART_ERROR)
          this.#over = true
          break
        }
        this.#open = true
      } else if (event.type === "stop") this.#open = false
      else if (isContent(event)) this.#shown = true
      out.push(event)
    }
    return out
  }
}
