import type { Message } from "./message.js"

/**
 * The user's requests in a conversation: the text a person typed, as opposed to tool results, context
 * elements (`<environment_details>`, `<files_changed_externally>`, a `<conversation_summary>`), notes in
 * brackets, and the fixed texts the agent itself writes on the user's side.
 */

/** Texts the reference agent writes on the user's side; they are never a user request. */
export const AGENT_TEXTS = {
  nudge:
    "You answered without calling a tool. If the task is done, call the completion tool with the result; otherwise continue with the next tool call.",
  resumed: "The session was resumed. Continue the task.",
} as const

const agentTexts: ReadonlySet<string> = new Set(Object.values(AGENT_TEXTS))

/** True when a user text block is a request a person wrote (not a context element, note or agent text). */
export function isUserRequest(text: string): boolean {
  const t = text.trim()
  return t !== "" && !t.startsWith("<") && !t.startsWith("[") && !agentTexts.has(t)
}

/** Elements that hold what a person wrote, as Cline-style histories wrap it. */
const REQUEST_ELEMENT = /<(task|feedback|user_message)>\s*([\s\S]*?)\s*<\/\1>/g

/**
 * The user's requests in order: each text block of a user message that `isUserRequest` accepts, and
 * the text inside `<task>`, `<feedback>` and `<user_message>` elements of other user text.
 */
export function userRequests(messages: readonly Message[]): string[] {
  const out: string[] = []
  for (const m of messages) {
    if (m.role !== "user") continue
    for (const b of m.content) {
      if (b.type !== "text") continue
      if (isUserRequest(b.text)) out.push(b.text)
      else if (b.text.trimStart().startsWith("<"))
        for (const match of b.text.matchAll(REQUEST_ELEMENT)) if (match[2]) out.push(match[2])
    }
  }
  return out
}
