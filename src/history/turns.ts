import type { Block, Message } from "./message.js"

/**
 * Joins each run of consecutive user messages into one, so what is sent alternates user and assistant.
 * A run happens when the history ends with a user message and more user content is appended: a new
 * task after a completed session, or updates when resuming after the tool results were saved. The
 * joined message keeps the first one's id and time; the history itself is never changed. Returns the
 * same array when there is no run.
 */
export function joinUserRuns(messages: readonly Message[]): Message[] {
  if (!messages.some((m, i) => i > 0 && m.role === "user" && messages[i - 1]!.role === "user")) return [...messages]
  const out: Message[] = []
  for (const m of messages) {
    const previous = out.at(-1)
    if (previous && previous.role === "user" && m.role === "user") {
      const content: Block[] = [...previous.content, ...m.content]
      out[out.length - 1] = { ...previous, content }
    } else out.push(m)
  }
  return out
}
